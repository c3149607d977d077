import type { ReactNode } from "react";

/** The `<option>`s of a `<select>`, one an item: `choice` gives its value (its key too) and its text. */
export const optionList = <T,>(
  items: readonly T[],
  choice: (item: T) => readonly [string | number, ReactNode],
) =>
  items.map((item) => {
    const [value, label] = choice(item);
    return (
      <option key={value} value={value}>
        {label}
      </option>
    );
  });
