import { auditHandlers } from "../audit/handlers";
import { credentialHandlers } from "../credentials/handlers";
import type { HandlerMap } from "../http/handler";
import { policyHandlers } from "../policies/handlers";
import { trustCenterHandlers } from "../trust-center/handlers";
import { operatorHandlers } from "./handlers";
import { signInHandlers } from "./sign-in";

/** Issue 4's handler maps in one: credentials, ODRL policies, audit, operator console, trust center, sign-in routes. */
export const governanceHandlers: HandlerMap = {
  ...credentialHandlers,
  ...policyHandlers,
  ...auditHandlers,
  ...operatorHandlers,
  ...trustCenterHandlers,
  ...signInHandlers,
};
