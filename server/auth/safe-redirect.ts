/** Only same-site relative paths; anything else (absolute, protocol-relative, backslashes) goes to `fallback`. */
export function safeRedirect(to: FormDataEntryValue | string | null | undefined, fallback = "/"): string {
  if (!to || typeof to !== "string") return fallback;
  if (!to.startsWith("/") || to.startsWith("//") || to.startsWith("/\\") || /[\r\n\t]/.test(to))
    return fallback;
  if (to.startsWith("/auth/login") || to.startsWith("/auth/callback") || to.startsWith("/auth/logout"))
    return fallback;
  return to;
}
