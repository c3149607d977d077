import { existsSync, readFileSync } from "node:fs";

/**
 * A section of docs/benchmarks.md that another script writes between two HTML comments (the two-instance
 * row, Lighthouse): replaced in place when that script runs again, and kept as it is when `npm run bench`
 * rewrites the rest of the file.
 */
export interface DocSection {
  start: string;
  end: string;
}

/** `doc` with `section` (its marks included) in place of the old one, or appended */
export function putSection(doc: string, marks: DocSection, section: string): string {
  const at = doc.indexOf(marks.start);
  return at >= 0
    ? doc.slice(0, at) + section + doc.slice(doc.indexOf(marks.end) + marks.end.length)
    : `${doc.trimEnd()}\n\n${section}\n`;
}

/** `doc` (a new text of `file`) with the section `file` holds now appended, unless `doc` has one */
export function keepSection(file: string, doc: string, marks: DocSection): string {
  const old = existsSync(file) ? readFileSync(file, "utf8") : "";
  const at = old.indexOf(marks.start);
  if (at < 0 || doc.includes(marks.start)) return doc;
  return `${doc.trimEnd()}\n\n${old.slice(at, old.indexOf(marks.end) + marks.end.length)}\n`;
}

/** the Lighthouse figures (scripts/lighthouse.ts) */
export const LIGHTHOUSE_MARKS: DocSection = {
  start: "<!-- lighthouse:start -->",
  end: "<!-- lighthouse:end -->",
};
