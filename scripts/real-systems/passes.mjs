// The test passes of `npm test` that run against a real system, in order. Each pass names the test
// files it runs and starts its system: `start()` resolves `{ env, stop }`, `env` pointing the hub and
// the tests at the system. A system the environment already names (e.g. DATABASE_URL) is used as it is.
import { connectorPass } from "./connector-pass.mjs";
import { keycloakPass } from "./keycloak-pass.mjs";
import { neo4jPass } from "./neo4j-pass.mjs";
import { postgresPass } from "./postgres-pass.mjs";

export function passes(tools) {
  return [postgresPass(tools), neo4jPass(tools), keycloakPass(tools), connectorPass(tools)];
}
