import type { ReactNode } from "react";
import { isHttpUrl } from "./format";

/** A link to an outside vocabulary or licence; plain text when the value is no http(s) URL. */
export function ExternalLink({ href, children }: { href: unknown; children?: ReactNode }) {
  if (!isHttpUrl(href)) return <>{children ?? String(href ?? "")}</>;
  return (
    <a href={href} rel="noopener noreferrer external" target="_blank" className="external">
      {children ?? href}
      <span className="visually-hidden"> (opens in a new tab)</span>
    </a>
  );
}
