import { runAction, type ActionResult } from "../../lib/access-body/actions.server";
import type { InPlace } from "../../lib/api-errors.server";

/** A page's form intents: each the service call it makes and the notice when the call went through. */
export type Intents = Partial<Record<string, readonly [call: () => Promise<unknown>, ok: string]>>;

/** Runs the posted intent's call through runAction; an intent the page does not have is `unknown`. */
export function runIntent(
  intent: string,
  intents: Intents,
  unknown = `Unknown action ${intent}`,
): Promise<InPlace<ActionResult>> | ActionResult {
  const entry = Object.hasOwn(intents, intent) ? intents[intent] : undefined;
  return entry ? runAction(intent, ...entry) : { error: unknown };
}
