import type { ReactNode, TableHTMLAttributes } from "react";

/** A column heading: its text, a numeric column (`num(...)`), or nothing (a column this view leaves out). */
export type Column = ReactNode | { label: ReactNode; num: true } | null | false;

/** A numeric column: heading and cells right-aligned (the `num` class). */
export const num = (label: ReactNode): Column => ({ label, num: true });

/** The heading of a column of row actions: named for screen readers, not shown. */
export const ACTIONS: Column = <span className="visually-hidden">Actions</span>;

function isNumeric(c: Column): c is { label: ReactNode; num: true } {
  return typeof c === "object" && c !== null && "num" in c;
}

/**
 * A table of rows under one row of column headings: the views' one way to write `<table>` with
 * `<thead>` and `<tbody>`. The rows are the children (`<tr>` elements); `caption` is the `<caption>`.
 */
export function DataTable({
  columns,
  caption,
  className = "data",
  children,
  ...attributes
}: {
  columns: readonly Column[];
  caption?: ReactNode;
  className?: string;
  children: ReactNode;
} & Omit<TableHTMLAttributes<HTMLTableElement>, "className" | "children">) {
  return (
    <table className={className} {...attributes}>
      {caption}
      <thead>
        <tr>
          {columns.map((c, i) =>
            c === null || c === false ? null : (
              <th key={i} scope="col" className={isNumeric(c) ? "num" : undefined}>
                {isNumeric(c) ? c.label : c}
              </th>
            ),
          )}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}
