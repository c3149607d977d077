import type { Settings } from "./electron-api";

/** Helpers shared by the test files split from desktop.test.ts. */

export function memorySettings(text: string | null = null): Settings & { text: string | null } {
  const s = {
    text,
    read: () => s.text,
    write: (t: string) => {
      s.text = t;
    },
  };
  return s;
}
