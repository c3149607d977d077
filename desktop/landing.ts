/**
 * Trust-center operators land on the trust center view. The desktop reads who is signed in from
 * the page it shows (the top bar's `data-roles`, app/root.tsx), and the first time a trust-center
 * operator reaches the overview after starting or signing in, it opens /trust-center instead
 * (in static mode inside the persona's app: /as/<persona>/trust-center). Later visits to the
 * overview stay there.
 */

export const TRUST_CENTER_PATH = "/trust-center";

/** the expression the window evaluates: the signed-in user's roles and name, or null */
export const WHOAMI_EXPRESSION = `(() => { const e = document.querySelector('[data-testid="whoami"][data-roles]'); return e ? { roles: (e.getAttribute('data-roles') || '').split(' ').filter(Boolean), name: e.textContent || '' } : null; })()`;

export interface Whoami {
  roles: string[];
  name: string;
}

export function landingPath(roles: readonly string[]): string | null {
  return roles.includes("TRUST_CENTER_OPERATOR") ? TRUST_CENTER_PATH : null;
}

/** `/` or `/as/<persona>/` (the overview), with its basename */
export function overviewBase(pathname: string): string | null {
  if (pathname === "/" || pathname === "") return "";
  const m = /^(\/as\/[a-z0-9][a-z0-9_-]*)\/?$/.exec(pathname);
  return m ? m[1] : null;
}

export class LandingTracker {
  private landed = new Set<string>();

  /** after a page of the app finished loading: where to go instead, if anywhere */
  decide(url: string, appOrigins: readonly string[], who: Whoami | null): string | null {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return null;
    }
    if (!appOrigins.includes(u.origin) || !who) return null;
    const base = overviewBase(u.pathname);
    if (base === null) return null;
    const target = landingPath(who.roles);
    const key = `${u.origin}${base}|${who.name}`;
    if (!target || this.landed.has(key)) return null;
    this.landed.add(key);
    return `${u.origin}${base}${target}`;
  }

  /** a new start (mode switch, sign-out): land again */
  reset(): void {
    this.landed.clear();
  }
}
