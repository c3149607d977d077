/**
 * Only same-site relative paths; anything else (absolute, protocol-relative, backslashes, control
 * characters, a lone surrogate) goes to `fallback`. What is kept is printable ASCII: any other
 * character (a space, "é", "漢") is percent-encoded, since a `Location` header carries Latin-1 at most
 * and a web `Headers` throws on anything beyond it (the sign-in callback answered 500 with the
 * exception's text).
 */
export function safeRedirect(to: FormDataEntryValue | string | null | undefined, fallback = "/"): string {
  if (!to || typeof to !== "string") return fallback;
  if (!to.startsWith("/") || to.startsWith("//") || to.startsWith("/\\") || hasControl(to)) return fallback;
  if (/^\/auth\/(login|callback|logout)/.test(to)) return fallback;
  if (!NOT_PRINTABLE_ASCII.test(to)) return to;
  try {
    return to.replace(NOT_PRINTABLE_ASCII_ALL, (c) => encodeURIComponent(c));
  } catch {
    // URIError: a lone surrogate, which no URL can carry
    return fallback;
  }
}

/** whether `s` holds a control character (a header split, or a character no URL carries) */
const hasControl = (s: string) => [...s].some((c) => c < " " || c === "\x7f");
const NOT_PRINTABLE_ASCII = /[^\x21-\x7e]/;
const NOT_PRINTABLE_ASCII_ALL = /[^\x21-\x7e]/gu;
