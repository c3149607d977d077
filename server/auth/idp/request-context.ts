import type { IncomingMessage, ServerResponse } from "node:http";
// the provider's own request-context store (oidc-provider 9, pinned in package.json): its middleware
// runs every provider request inside `als.run(ctx, …)` and its models read the context back
import providerContext from "oidc-provider/lib/helpers/als.js";

/**
 * oidc-provider keeps each request's context in an AsyncLocalStorage, which once `run` has been called
 * puts a promise hook on every promise of the process until it is disabled (decision 0033). So the
 * store is disabled again whenever no provider request is in flight; the
 * provider's next request enables it again (`run` does). A provider request is in flight from the
 * moment it reaches the provider until its response has finished or its connection closed; the
 * provider reads its context only before it answers.
 */
export function providerContextWhileInFlight(store: { disable(): void } = providerContext) {
  let inFlight = 0;
  return (_req: IncomingMessage, res: ServerResponse, next: () => void) => {
    inFlight++;
    let done = false;
    const end = () => {
      if (done) return;
      done = true;
      if (--inFlight === 0) store.disable();
    };
    res.once("finish", end);
    res.once("close", end);
    next();
  };
}
