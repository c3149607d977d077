import { PrefetchPageLinks, useHref, useLocation, useNavigate } from "@remix-run/react";
import {
  createContext,
  useContext,
  useEffect,
  useState,
  type AnchorHTMLAttributes,
  type ComponentProps,
  type ReactNode,
} from "react";
import { appHref, appPathOf, isPlainClick, navLinkActive } from "./app-href";

/**
 * In-app links that cost a plain anchor to render (decision 0031): Remix's `Link` resolves its path
 * against the route matches, composes refs and sets up prefetch state on every render. `AppLink` renders
 * `<a href data-app-link data-discover>` from an absolute in-app path and the basename read once per
 * page; `AppLinkRouting` (in the root) turns a plain click on one into a client-side navigation and
 * prefetches the page a pointer rests on when the link asks for it. Relative links (`?page=2`) stay
 * Remix `Link`s.
 */

const Basename = createContext("/");

type AnchorProps = Omit<AnchorHTMLAttributes<HTMLAnchorElement>, "href">;

export type AppLinkProps = AnchorProps & {
  /** an absolute in-app path, search and hash included: "/catalogue/ds-1?q=x" */
  to: string;
  /** load the page's code and data when the pointer rests on the link or it is focused */
  prefetch?: "intent";
  /** keep the scroll position (a master-detail list) */
  preventScrollReset?: boolean;
};

export function AppLink({ to, prefetch, preventScrollReset, children, ...rest }: AppLinkProps) {
  const basename = useContext(Basename);
  // the caller's attributes spread last, for V8's sake (decision 0031); `rest` holds no href
  const props = {
    href: appHref(basename, to),
    "data-app-link": "",
    "data-discover": "true",
    "data-prefetch": prefetch,
    "data-keep-scroll": preventScrollReset ? "" : undefined,
    ...rest,
    children,
  };
  return <a {...props} />;
}

/** a sub-navigation entry: `active` and `aria-current="page"` on the current one */
export function AppNavLink({ to, end, ...rest }: AppLinkProps & { end?: boolean }) {
  const active = navLinkActive(useLocation().pathname, to, end);
  const props = {
    to,
    className: active ? "active" : undefined,
    "aria-current": active ? ("page" as const) : undefined,
    ...rest,
  };
  return <AppLink {...props} />;
}

/** a sub-navigation bar (`nav`'s own attributes); `end`: the entry is current on its own path only */
export function SubNav({ items, ...nav }: ComponentProps<"nav"> & { items: readonly SubNavEntry[] }) {
  return (
    <nav {...nav}>
      {items.map((i) => (
        <AppNavLink key={i.to} to={i.to} end={i.end}>
          {i.label}
        </AppNavLink>
      ))}
    </nav>
  );
}
type SubNavEntry = { to: string; label: string; end?: boolean };

function appLinkOf(target: EventTarget | null): HTMLAnchorElement | null {
  const a = target instanceof Element ? target.closest("a[data-app-link]") : null;
  return a instanceof HTMLAnchorElement ? a : null;
}

/**
 * Provides the basename to every `AppLink` below it and, once hydrated, routes their clicks through
 * the router (before hydration they are ordinary document links). Rendered once, in the root.
 */
export function AppLinkRouting({ children }: { children: ReactNode }) {
  const basename = useHref("/");
  const navigate = useNavigate();
  const [intent, setIntent] = useState<string | null>(null);

  useEffect(() => {
    const inApp = (a: HTMLAnchorElement) => {
      if ((a.target && a.target !== "_self") || a.hasAttribute("download")) return null;
      const url = new URL(a.href);
      if (url.origin !== window.location.origin) return null;
      return appPathOf(basename, url.pathname, url.search, url.hash);
    };
    const within = (a: HTMLAnchorElement, other: EventTarget | null) =>
      other instanceof Node && a.contains(other);
    const onClick = (e: MouseEvent) => {
      if (e.defaultPrevented || !isPlainClick(e)) return;
      const a = appLinkOf(e.target);
      const to = a ? inApp(a) : null;
      if (!a || to === null) return;
      e.preventDefault();
      const { pathname, search, hash } = window.location;
      navigate(to, {
        // a link to the page already shown replaces it in the history, as Remix's Link does
        replace: a.href === window.location.origin + pathname + search + hash,
        preventScrollReset: a.hasAttribute("data-keep-scroll"),
      });
    };
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onIntent = (e: MouseEvent | FocusEvent) => {
      const a = appLinkOf(e.target);
      if (!a || a.dataset.prefetch !== "intent" || within(a, e.relatedTarget) || inApp(a) === null) return;
      clearTimeout(timer);
      // the page as Remix's own prefetch names it (basename included), after its intent delay: a
      // pointer passing over a list does not fetch every entry
      const { pathname, search } = new URL(a.href);
      timer = setTimeout(() => setIntent(pathname + search), 100);
    };
    const onLeave = (e: MouseEvent) => {
      const a = appLinkOf(e.target);
      if (a && !within(a, e.relatedTarget)) clearTimeout(timer);
    };
    const listening = new AbortController();
    const { signal } = listening;
    document.addEventListener("click", onClick, { signal });
    document.addEventListener("mouseover", onIntent, { signal });
    document.addEventListener("focusin", onIntent, { signal });
    document.addEventListener("mouseout", onLeave, { signal });
    return () => {
      clearTimeout(timer);
      listening.abort();
    };
  }, [basename, navigate]);

  return (
    <Basename.Provider value={basename}>
      {children}
      {intent ? <PrefetchPageLinks page={intent} /> : null}
    </Basename.Provider>
  );
}
