import type { LinksFunction, LoaderFunctionArgs } from "@remix-run/node";
import {
  Form,
  isRouteErrorResponse,
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useLocation,
  useMatches,
  useRouteError,
  useRouteLoaderData,
} from "@remix-run/react";
import { useEffect, useState } from "react";
import { safeRedirect } from "../server/auth/safe-redirect";
import { dataspaceNavFor, navFor } from "./lib/navigation.server";
import { personaCards } from "./lib/personas.server";
import { pick } from "./lib/pick";
import { rolesLabel } from "./components/ui/labels";
import { AppLink, AppLinkRouting } from "./components/ui/app-link";
import { MainNav } from "./components/ui/MainNav";
import { PersonaPicker } from "./components/ui/PersonaPicker";
import { getUser } from "./session.server";
import styles from "./styles/app.css";

export const links: LinksFunction = () => [
  { rel: "stylesheet", href: styles },
  { rel: "icon", href: "/favicon.ico" },
];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await getUser(request, context);
  const mode = context.services.config.appMode;
  return {
    user: user && pick(user, "username name roles organisation"),
    // the role-aware navigation's entries for this user (views hold no role list)
    nav: user ? navFor(user.roles) : [],
    dataspaceNav: user ? dataspaceNavFor(user.roles) : [],
    mode,
    // static mode (server/static-mode): the persona switcher replaces sign-in; `exported`: a page of `npm run export`
    demo:
      mode === "static"
        ? {
            personas: personaCards(),
            returnTo: safeRedirect(new URL(request.url).searchParams.get("returnTo"), "/"),
            exported: request.headers.get("x-hub-export") === "1",
          }
        : null,
  };
}

/** the demonstration notices across the top of the page */
const BANNER = { margin: 0, borderRadius: 0, textAlign: "center" } as const;
type Demo = NonNullable<RootData["demo"]>;

/** static mode: the persona in the path (/as/<persona>/...) is the session; each tab keeps its own */
function PersonaSwitcher({ demo, current }: { demo: Demo; current: string }) {
  const section = `/${useLocation().pathname.split("/").filter(Boolean)[0] ?? ""}`;
  return (
    <details className="persona-switch" data-testid="persona-switcher" style={{ position: "relative" }}>
      <summary className="button ghost">Switch persona</summary>
      <ul
        className="card"
        style={{
          position: "absolute",
          right: 0,
          zIndex: 20,
          listStyle: "none",
          margin: 0,
          padding: "0.4rem",
          minWidth: "16rem",
        }}
      >
        {demo.personas.map((p) => (
          <li key={p.username}>
            {/* a document navigation: the persona is the app's basename */}
            <a
              href={`/as/${p.username}${section}`}
              aria-current={p.username === current ? "true" : undefined}
              data-testid={`switch-${p.username}`}
              data-persona-switch
              style={{ color: "var(--ink)" }}
            >
              {p.name} <span className="muted">· {p.organisation}</span>
            </a>
          </li>
        ))}
      </ul>
    </details>
  );
}

function PersonaChooser({ demo }: { demo: Demo }) {
  return (
    <section className="signin" data-testid="persona-chooser">
      <h1>Choose a persona</h1>
      <p className="lead">
        This demonstration runs from bundled fixtures: pick who you are, and every view shows what that
        persona sees. Each browser tab keeps its own persona.
      </p>
      <PersonaPicker personas={demo.personas} hrefOf={(u) => `/as/${u}${demo.returnTo}`} />
    </section>
  );
}

/** the demonstration banner; in an export (no server) it also refuses form posts in place */
function DemoBanner({ demo, persona }: { demo: Demo; persona: string | null }) {
  const [refused, setRefused] = useState(false);
  useEffect(() => {
    const onClick = (e: MouseEvent) => {
      // plain links without the persona (not rendered by AppLink or Link) stay in the persona's app
      const a = (e.target as Element | null)?.closest?.("a[href]");
      const href = a?.getAttribute("href") ?? "";
      if (persona && a && /^\/(?!\/|as\/|build\/|auth\/|api\/)/.test(href))
        a.setAttribute("href", `/as/${persona}${href}`);
    };
    const onSubmit = (e: SubmitEvent) => {
      const form = e.target as HTMLFormElement;
      if ((form.getAttribute("method") ?? "get").toLowerCase() === "get") return;
      e.preventDefault();
      e.stopPropagation();
      setRefused(true);
    };
    const listening = new AbortController();
    const { signal } = listening;
    document.addEventListener("click", onClick, { capture: true, signal });
    if (demo.exported) window.addEventListener("submit", onSubmit, { capture: true, signal });
    return () => listening.abort();
  }, [demo.exported, persona]);
  return (
    <>
      <p className="notice" role="status" data-testid="demo-banner" style={BANNER}>
        <strong>Demonstration — changes are not saved.</strong> Fixed sample data
        {demo.exported ? "; searches and filters show the full lists in this offline copy" : ""}.
      </p>
      {refused ? (
        <p className="notice error" role="alert" data-testid="demo-write-refused" style={BANNER}>
          This is a demonstration: changes are not saved
        </p>
      ) : null}
    </>
  );
}

export type RootData = Awaited<ReturnType<typeof loader>>;

/** what a page says of itself in search results, unless its route's `handle.description` says more */
const DESCRIPTION =
  "Health Dataspace Hub: the catalogue, knowledge graph, data permits and exchanges of a European health data space, for its participants.";

export function Layout({ children }: { children: React.ReactNode }) {
  // every page has one description (search results and Lighthouse's SEO audit): the deepest route's own, or the hub's
  const description =
    useMatches()
      .map((m) => (m.handle as { description?: string } | undefined)?.description)
      .filter(Boolean)
      .pop() ?? DESCRIPTION;
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="description" content={description} />
        <Meta />
        <Links />
      </head>
      <body>
        {children}
        <ScrollRestoration />
        <Scripts />
      </body>
    </html>
  );
}

function Shell({ children }: { children: React.ReactNode }) {
  const data = useRouteLoaderData<RootData>("root");
  const user = data?.user;
  const demo = data?.demo ?? null;
  const items = data?.nav ?? [];
  // a page a visitor who is not signed in may see (`handle.publicPage`): static mode shows it, not the chooser
  const publicPage = useMatches().some((m) => (m.handle as { publicPage?: boolean } | undefined)?.publicPage);
  return (
    <AppLinkRouting>
      <div className="shell">
        {demo ? <DemoBanner demo={demo} persona={user?.username ?? null} /> : null}
        <header className="topbar">
          <AppLink to="/" className="brand">
            <span className="brand-mark" aria-hidden>
              ◈
            </span>
            Health Dataspace Hub
          </AppLink>
          {user ? (
            <div className="whoami">
              <span data-testid="whoami" data-roles={user.roles.join(" ")}>
                {user.name} · <span className="muted">{user.organisation}</span>
              </span>
              <span className="roles">{rolesLabel(user.roles)}</span>
              {demo ? <PersonaSwitcher demo={demo} current={user.username} /> : null}
              {demo ? null : (
                <Form method="post" action="/auth/logout" reloadDocument>
                  <button type="submit" className="button ghost">
                    Sign out
                  </button>
                </Form>
              )}
            </div>
          ) : demo ? null : (
            <AppLink to="/auth/signin" className="button">
              Sign in
            </AppLink>
          )}
        </header>
        <div className="body">
          {user ? <MainNav items={items} /> : null}
          <main className="content">
            {demo && !user && !publicPage ? <PersonaChooser demo={demo} /> : children}
          </main>
        </div>
      </div>
    </AppLinkRouting>
  );
}

export default function App() {
  return (
    <Shell>
      <Outlet />
    </Shell>
  );
}

const ERROR_HEADINGS: Record<number, string> = {
  400: "Request not accepted",
  403: "Not allowed",
  404: "Page not found",
  502: "A connected service failed",
  503: "Temporarily unavailable",
};

export function ErrorBoundary() {
  const error = useRouteError();
  const status = isRouteErrorResponse(error) ? error.status : 500;
  const message = isRouteErrorResponse(error)
    ? typeof error.data === "string"
      ? error.data
      : error.statusText
    : "Something went wrong on our side. The team has been told.";
  const heading = ERROR_HEADINGS[status] ?? "Error";
  return (
    <Shell>
      <title>{`${heading} · Health Dataspace Hub`}</title>
      <section className="card error-page">
        <h1>{heading}</h1>
        <p>{message}</p>
        <AppLink to="/">Back to the overview</AppLink>
      </section>
    </Shell>
  );
}
