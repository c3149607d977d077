/** what other capabilities read of the policies: a policy node's rule list and its actions */
export { ruleActions, rules } from "./odrl";
