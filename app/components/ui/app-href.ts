/**
 * The paths behind `AppLink` (./app-link.tsx): an in-app link is a plain anchor whose href carries the
 * router's basename (`/as/<persona>` in static mode, none otherwise), and one click handler turns a
 * click on it back into the in-app path that the router's `navigate` takes.
 */

/** the href of the in-app absolute path `to` ("/catalogue?q=x") under the router's basename */
export function appHref(basename: string, to: string): string {
  if (basename === "/" || basename === "") return to;
  const base = basename.endsWith("/") ? basename.slice(0, -1) : basename;
  // "/", "/?q" and "/#x" are the basename itself, as React Router's useHref renders them
  return to === "/" || to.startsWith("/?") || to.startsWith("/#") ? base + to.slice(1) : base + to;
}

/** the in-app path of a same-origin URL's parts, its basename taken off; null when outside the basename */
export function appPathOf(basename: string, pathname: string, search: string, hash: string): string | null {
  const base = basename.endsWith("/") ? basename.slice(0, -1) : basename;
  if (!base) return pathname + search + hash;
  if (pathname !== base && !pathname.startsWith(`${base}/`)) return null;
  return (pathname.slice(base.length) || "/") + search + hash;
}

/** whether the in-app path `to` is the current page for a sub-navigation entry (NavLink's rule) */
export function navLinkActive(pathname: string, to: string, end = false): boolean {
  const cut = to.search(/[?#]/);
  const path = cut === -1 ? to : to.slice(0, cut);
  const current = pathname.length > 1 && pathname.endsWith("/") ? pathname.slice(0, -1) : pathname;
  if (current === path) return true;
  if (end || path === "/") return false;
  return current.startsWith(`${path}/`);
}

/**
 * The one sidebar entry that is current for a path: the entry whose path is the longest prefix of
 * it (`/access-body/report` is the activity report, not also the access body). Null when none is.
 */
export function activeNavPath(pathname: string, paths: readonly string[]): string | null {
  let best: string | null = null;
  for (const to of paths) {
    if (navLinkActive(pathname, to) && (best === null || to.length > best.length)) best = to;
  }
  return best;
}

/** a click the browser would open in this tab: main button, no modifier key */
export function isPlainClick(e: Pick<MouseEvent, "button" | "metaKey" | "altKey" | "ctrlKey" | "shiftKey">) {
  return e.button === 0 && !e.metaKey && !e.altKey && !e.ctrlKey && !e.shiftKey;
}
