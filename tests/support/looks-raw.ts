/** true when a text shows a raw identifier: camelCase, UPPER_SNAKE_CASE or a known enum value (the label tests' oracle) */
export function looksRaw(text: string): boolean {
  return /\b[a-z]+[A-Z][a-zA-Z]*\b/.test(text) || /\b[A-Z]{2,}_[A-Z_]+\b/.test(text);
}
