import { auditHandlers, type AuditServices } from "../audit/handlers";
import { credentialHandlers, type CredentialServices } from "../credentials/handlers";
import type { HandlerMap } from "../http/handler";
import { policyHandlers, type PolicyServices } from "../policies/handlers";
import { trustCenterHandlers, type TrustCenterServices } from "../trust-center/handlers";
import { operatorHandlers, type OperatorServices } from "./handlers";
import { signInHandlers, type SignInServices } from "./sign-in";

export type GovernanceServices = CredentialServices &
  PolicyServices &
  AuditServices &
  OperatorServices &
  TrustCenterServices &
  SignInServices;

/** Issue 4's handler maps in one: credentials, ODRL policies, audit, operator console, trust center, sign-in routes. */
export const governanceHandlers: HandlerMap<GovernanceServices> = {
  ...credentialHandlers,
  ...policyHandlers,
  ...auditHandlers,
  ...operatorHandlers,
  ...trustCenterHandlers,
  ...signInHandlers,
};
