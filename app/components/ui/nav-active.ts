import { navLinkActive } from "./app-href";

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
