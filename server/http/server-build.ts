import type { ServerBuild } from "@remix-run/node";
import { withUnavailablePages } from "./unavailable-pages";

/**
 * Imports the Remix server build with React's production build. React (and react-dom/server)
 * choose their build from `process.env.NODE_ENV` once, when first loaded; the hub runs with
 * NODE_ENV unset, development or test whenever the embedded identity provider serves sign-in
 * (it refuses production), which would otherwise render every page with React's development build
 * (several times slower, with extra checks). NODE_ENV is production only while the build and its
 * dependencies load, then restored, so the hub's own configuration (read before) is unchanged.
 * A thrown ApiError of its loaders and actions answers the error page with its status (./unavailable-pages.ts).
 */
export async function importServerBuild(href: string): Promise<ServerBuild> {
  const before = process.env.NODE_ENV;
  process.env.NODE_ENV = "production";
  try {
    return withUnavailablePages((await import(href)) as ServerBuild);
  } finally {
    if (before === undefined) Reflect.deleteProperty(process.env, "NODE_ENV");
    else process.env.NODE_ENV = before;
  }
}
