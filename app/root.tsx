import type { LinksFunction, LoaderFunctionArgs } from "@remix-run/node";
import {
  Form,
  isRouteErrorResponse,
  Link,
  Links,
  Meta,
  NavLink,
  Outlet,
  Scripts,
  ScrollRestoration,
  useLoaderData,
  useRouteError,
  useRouteLoaderData,
} from "@remix-run/react";
import { navFor } from "./components/navigation";
import { useNonce } from "./nonce";
import { getUser } from "./session.server";
import styles from "./styles/app.css";

export const links: LinksFunction = () => [
  { rel: "stylesheet", href: styles },
  { rel: "icon", href: "/favicon.ico" },
];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await getUser(request, context);
  return {
    user: user && { username: user.username, name: user.name, roles: user.roles, organisation: user.organisation },
    mode: context.services.config.appMode,
  };
}

export type RootData = Awaited<ReturnType<typeof loader>>;

export function Layout({ children }: { children: React.ReactNode }) {
  const nonce = useNonce();
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <Meta />
        <Links />
      </head>
      <body>
        {children}
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  );
}

function Shell({ children }: { children: React.ReactNode }) {
  const data = useRouteLoaderData<RootData>("root");
  const user = data?.user;
  const items = user ? navFor(user.roles) : [];
  return (
    <div className="shell">
      <header className="topbar">
        <Link to="/" className="brand">
          <span className="brand-mark" aria-hidden>
            ◈
          </span>
          Health Dataspace Hub
        </Link>
        {user ? (
          <div className="whoami">
            <span data-testid="whoami">
              {user.name} · <span className="muted">{user.organisation}</span>
            </span>
            <span className="roles">{user.roles.map((r) => r.replaceAll("_", " ").toLowerCase()).join(", ")}</span>
            <Form method="post" action="/auth/logout">
              <button type="submit" className="button ghost">
                Sign out
              </button>
            </Form>
          </div>
        ) : (
          <Link to="/auth/signin" className="button">
            Sign in
          </Link>
        )}
      </header>
      <div className="body">
        {user ? (
          <nav className="sidenav" aria-label="Main">
            {items.map((i) => (
              <NavLink key={i.to} to={i.to} end={i.to === "/"}>
                {i.label}
              </NavLink>
            ))}
          </nav>
        ) : null}
        <main className="content">{children}</main>
      </div>
    </div>
  );
}

export default function App() {
  useLoaderData<typeof loader>();
  return (
    <Shell>
      <Outlet />
    </Shell>
  );
}

export function ErrorBoundary() {
  const error = useRouteError();
  const status = isRouteErrorResponse(error) ? error.status : 500;
  const message = isRouteErrorResponse(error)
    ? typeof error.data === "string"
      ? error.data
      : error.statusText
    : "Something went wrong on our side. The team has been told.";
  return (
    <Shell>
      <section className="card error-page">
        <h1>{status === 404 ? "Page not found" : status === 403 ? "Not allowed" : "Error"}</h1>
        <p>{message}</p>
        <Link to="/">Back to the overview</Link>
      </section>
    </Shell>
  );
}
