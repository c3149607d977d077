export { callerKey, type CallerClass } from "./callers";
export { identityOf, inputVersions, keyText } from "./key";
export { createKept, createKeptByInputs, deepFrozen, EVERYONE, type KeptKey, type KeptOptions } from "./kept";
export { createRouteKeeper, type KeepSpec, type VersionName, type Versions } from "./route";
