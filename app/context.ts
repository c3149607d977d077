import "@remix-run/node";
import type { Services } from "../server/services";

/** What server/app.ts hands every loader and action. */
declare module "@remix-run/node" {
  interface AppLoadContext {
    services: Services;
    /** the Content-Security-Policy of a page whose inline scripts have these SHA-256 hashes (base64) */
    contentSecurityPolicy(scriptHashes: readonly string[]): string;
  }
  interface Future {
    v3_singleFetch: true;
  }
}

export {};
