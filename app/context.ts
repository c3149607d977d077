import "@remix-run/node";
import type { Services } from "../server/services";

/** What server/app.ts hands every loader and action. */
declare module "@remix-run/node" {
  interface AppLoadContext {
    services: Services;
    cspNonce: string;
  }
  interface Future {
    v3_singleFetch: true;
  }
}

export {};
