import type { ReactNode } from "react";

/** One control of a filter bar, captioned above it; `grow` lets it take the bar's spare width. */
export function Filter({ label, grow, children }: { label: ReactNode; grow?: boolean; children: ReactNode }) {
  return (
    <label className={grow ? "filter grow" : "filter"}>
      <span>{label}</span>
      {children}
    </label>
  );
}
