import type { ReactNode } from "react";

export type Tone = "neutral" | "info" | "ok" | "warn" | "danger";

/** A small pill for statuses and flags; colour is never the only carrier of meaning (the text is). */
export function Badge({
  tone = "neutral",
  children,
  testId,
}: {
  tone?: Tone;
  children: ReactNode;
  testId?: string;
}) {
  return (
    <span className={`badge badge-${tone}`} data-testid={testId}>
      {children}
    </span>
  );
}
