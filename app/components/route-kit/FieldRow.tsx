import type { ReactNode } from "react";

/** One labelled value of a `<dl className="fields">`. */
export function FieldRow({ label, children }: { label: ReactNode; children: ReactNode }) {
  return (
    <div className="field-row">
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}
