/**
 * CSV as RFC 4180 writes it (cells joined by commas, rows by CRLF, a quote doubled inside quotes),
 * every cell safe to open in a spreadsheet: a text starting with = + - @ or a tab or CR is
 * neutralised with a leading ' so it is never run as a formula (OWASP, CSV injection). A number is
 * written as it is: a negative one is a value, not a formula.
 */
export function csvCell(v: unknown): string {
  const s = v === null || v === undefined ? "" : String(v);
  const safe = typeof v !== "number" && /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
  return /[",\r\n]/.test(safe) || safe !== s ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** rows of cells as one CSV document, ending with CRLF */
export const csvText = (rows: unknown[][]) =>
  rows.map((row) => row.map(csvCell).join(",")).join("\r\n") + "\r\n";
