// oidc-provider's internal request-context store (lib/helpers/als.js), read by ./request-context.ts
declare module "oidc-provider/lib/helpers/als.js" {
  import type { AsyncLocalStorage } from "node:async_hooks";
  const store: AsyncLocalStorage<unknown>;
  export default store;
}
