import { SLOW_MS, type ComponentDeps, type ComponentName, type ProbeOutcome } from "./component-model";

/** What the operator can do about a component, from its last probe and the configuration. */
export function remedies(name: ComponentName, outcome: ProbeOutcome, deps: ComponentDeps): string[] {
  const { config, dataspace } = deps;
  const embedded = dataspace.mode === "embedded";
  const e = outcome.error ?? "";
  const out: string[] = [];
  if (outcome.health === "up") return ["Nothing to do: the last probe succeeded."];
  if (outcome.health === "degraded" && outcome.latencyMs !== null && outcome.latencyMs > SLOW_MS) {
    out.push(
      `The probe took ${outcome.latencyMs} ms (more than ${SLOW_MS} ms): check the load and network path to the component.`,
    );
  }
  const timeout = /time-?out|did not answer/i.test(e);
  const unreachable = /unreachable|ECONNREFUSED|fetch failed|ENOTFOUND|connect/i.test(e);
  const token = /token/i.test(e);
  switch (name) {
    case "graph-store":
      out.push(
        config.neo4j
          ? `Check that Neo4j answers at ${config.neo4j.uri} and that NEO4J_USER / NEO4J_PASSWORD are right; the driver reconnects by itself once it does.`
          : `The embedded store is the SQLite file in DATA_DIR (${config.dataDir}): check free disk space and file permissions, then restart the hub.`,
      );
      break;
    case "identity-provider":
      out.push(
        deps.embeddedIdp
          ? "The embedded provider runs in the hub under /idp: if its discovery document fails, restart the hub; check PUBLIC_URL matches the address users reach."
          : `Check that ${config.oidc?.issuer}/.well-known/openid-configuration answers from the hub's host (OIDC_ISSUER), then restart this component to fetch discovery and keys again.`,
      );
      break;
    case "language-backend":
      out.push(
        config.nlqProxyUrl
          ? `Check the service at NLQ_PROXY_URL; meanwhile the built-in templates keep answering the questions they match.`
          : "No language back end is configured: the built-in templates answer. Set NLQ_PROXY_URL for questions no template matches.",
      );
      break;
    default: {
      const variable = {
        connector: "CONNECTOR_MANAGEMENT_URL",
        "tenant-manager": "TENANT_MANAGER_URL",
        issuer: "ISSUER_URL",
        "identity-hub": "IDENTITY_HUB_URL",
      }[name];
      if (embedded)
        out.push(
          "This service is part of the embedded local dataspace: restart it here (the four embedded services restart together).",
        );
      else {
        if (unreachable)
          out.push(`Nothing answers at the configured address: check ${variable} and that the service runs.`);
        if (timeout)
          out.push(
            `The service did not answer within UPSTREAM_TIMEOUT_MS (${config.upstreamTimeoutMs} ms): check its load, or raise the time-out.`,
          );
        if (token)
          out.push(
            "The access token could not be obtained: check CONNECTOR_TOKEN_URL, CONNECTOR_CLIENT_ID and CONNECTOR_CLIENT_SECRET.",
          );
        if (/HTTP 401|HTTP 403/.test(e))
          out.push("The service refused the hub's credentials: check the client registered for the hub.");
        if (/HTTP 404/.test(e))
          out.push(
            `The address answers but not with this API: check the path and version in ${variable}${name === "connector" ? " and CONNECTOR_API_VERSION" : ""}.`,
          );
        out.push("After fixing the cause, restart this component so the hub builds a fresh client.");
      }
    }
  }
  return out;
}
