/** what other capabilities read of the policies: a policy node's rule list */
export { rules } from "./odrl";
