import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { STATE_LABELS } from "../components/ui/labels";

/**
 * Issue 40, names everywhere a person reads: one spelling. The label catalogue says "Finalised"
 * (British, as the rest of the views); running text of a view must not say "finalized" beside it.
 * Checked in the quoted text and JSX text of every view (comments and identifiers aside).
 */
const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? files(path.join(dir, e.name))
      : /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name)
        ? [path.join(dir, e.name)]
        : [],
  );

/** what a person may read: string and template literals, and JSX text (between tags or expressions) */
function readable(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  return [...code.matchAll(/"([^"\n]*)"|`([^`]*)`|>\s*([A-Za-z][^<>{}=;()]*)<|}([^<>{}=;()"?:]*){/g)].map(
    (m) => m[1] ?? m[2] ?? m[3] ?? m[4] ?? "",
  );
}

describe("one spelling in the views", () => {
  it("the catalogue says Finalised, and no view's text says finalized", () => {
    expect(STATE_LABELS.FINALIZED).toBe("Finalised");
    const found: string[] = [];
    for (const f of [...files("app/routes"), ...files("app/components")])
      for (const text of readable(readFileSync(f, "utf8")))
        if (/\bfinaliz(ed|ing|ation)\b/.test(text)) found.push(`${f}: ${text.trim().slice(0, 80)}`);
    expect(found).toEqual([]);
  });
});
