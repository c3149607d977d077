import { useLocation } from "@remix-run/react";

/** query keys that are one-off notices, not part of the shareable search */
export const NOTICE_KEYS = ["withdrawn", "created", "confirm"];

/** the shareable part of the current query string ("?q=…&theme=…" or "") */
export function useCatalogueSearch(): string {
  const { search } = useLocation();
  const p = new URLSearchParams(search);
  for (const k of NOTICE_KEYS) p.delete(k);
  const s = p.toString();
  return s ? `?${s}` : "";
}
