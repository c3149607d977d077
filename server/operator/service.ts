import type { AuditLog } from "../audit/log";
import { IDP_CLIENT_ID } from "../auth/idp/provider";
import type { OidcClient } from "../auth/oidc-client";
import type { Config } from "../config";
import { createEncodedByInputs, type Dataspace } from "../dataspace";
import type { GraphStore } from "../graph";
import { createKept } from "../http/kept-answers";
import { EncodedBody } from "../http/node-adapter";
import type { Db } from "../storage/database";
import type { Relational } from "../storage/relational";
import type { EmbeddedDataspaceRestart } from "./component-model";
import { createComponents, type MutableContainer } from "./components";
import { createDirectory, type parseDirectoryInput } from "./directory";
import { createDiscovery } from "./discovery";
import { createMockDsp } from "./mock-dsp";
import { tenantInputs, tenantsOf, type Tenant } from "./tenants";

/**
 * The operator console's back end: components (health, topology, diagnosis, restart), tenants
 * from the tenant manager, the crawler's participant directory, the demonstration DSP catalogues,
 * the federated discovery check and where the identity provider is.
 */

export type { Tenant } from "./tenants";
export type { DiscoveryCheck, DiscoveryTarget } from "./discovery";

export async function createOperatorService(deps: {
  db: Db;
  rel: Relational;
  audit: AuditLog;
  config: Config;
  graph: GraphStore;
  dataspace: Dataspace;
  oidc: OidcClient;
  makeOidc: () => OidcClient;
  embeddedIdp: boolean;
  embeddedDataspace?: EmbeddedDataspaceRestart;
}) {
  const { config, dataspace } = deps;
  const components = createComponents(deps);
  const directory = await createDirectory(deps.rel, deps.audit, config.publicUrl);
  const mockDsp = createMockDsp({ graph: deps.graph, directory });
  const discovery = createDiscovery({ config, graph: deps.graph, directory, mockDsp });
  // read answers kept per version of what they read (server/http/kept-answers.ts)
  const keptDirectory = createKept<EncodedBody>(1);
  const keptCatalogs = createKept<EncodedBody>(64);
  const tenantBodies = createEncodedByInputs(1);

  return {
    /** every component as the last round of background probes saw it (components.ts) */
    components: () => components.list(),
    componentsBody: () => components.listBody(),
    topology: () => components.topology(),
    topologyBody: () => components.topologyBody(),
    /** one component, probed now */
    diagnosis: (name: string) => components.diagnosis(name),
    diagnosisBody: (name: string) => components.diagnosisBody(name),
    async restart(name: string, container: MutableContainer, by: string) {
      try {
        return await components.restart(name, container, by);
      } finally {
        // everything kept here is forgotten at once (the components' round is, in components.ts)
        discovery.invalidate();
      }
    },

    /** the crawler's participant directory */
    directory: () => directory.list(),
    /** GET /api/admin/participants: the JSON of directory(), kept per version of the directory */
    directoryBody: async () =>
      keptDirectory(await directory.fresh(), "", async () => EncodedBody.json(await directory.list())),
    addDirectoryEntry: (input: ReturnType<typeof parseDirectoryInput>, actor: string) =>
      directory.add(input, actor),
    removeDirectoryEntry: (key: string, actor: string) => directory.remove(key, actor),

    /** the demonstration DSP catalogue of a participant */
    catalog: (participant: string) => mockDsp.catalog(participant, config.publicUrl),
    /**
     * The JSON of catalog(participant), kept per version of the directory and the graph (what it reads);
     * an unknown participant's 404 is not kept
     */
    catalogBody: async (participant: string) =>
      keptCatalogs(`${await directory.fresh()}/${deps.graph.version()}`, participant, async () =>
        EncodedBody.json(await mockDsp.catalog(participant, config.publicUrl)),
      ),
    checkCatalogRequest: (body: Record<string, unknown>) => mockDsp.checkRequest(body),

    tenants: async (): Promise<Tenant[]> => tenantsOf(await tenantInputs(dataspace)),
    /**
     * GET /api/admin/tenants as sent: encoded once per set of upstream answers (the tenant list and each
     * tenant's profiles as the read cache hands them out: encoded-by-inputs.ts)
     */
    async tenantsBody(): Promise<EncodedBody> {
      const inputs = await tenantInputs(dataspace);
      return tenantBodies(inputs.tenants, "", inputs.profiles, () => tenantsOf(inputs));
    },

    /** the last federated discovery check (discovery.ts) */
    discoveryCheck: () => discovery.check(),
    discoveryCheckBody: () => discovery.checkBody(),
    /** a discovery check run now and kept for nobody (what the route answered per request before) */
    runDiscoveryCheck: () => discovery.runCheck(),

    /** GET /api/keycloak-config: where the identity provider is, for the sign-in banner (no secrets) */
    identityProvider(issuer: string) {
      const m = /^(.*)\/realms\/([^/]+)\/?$/.exec(issuer);
      const embedded = deps.embeddedIdp;
      return {
        issuer,
        url: m ? m[1] : issuer,
        realm: m ? m[2] : null,
        clientId: config.oidc?.clientId ?? IDP_CLIENT_ID,
        embedded,
        kind: embedded ? "embedded development provider" : m ? "Keycloak" : "OpenID provider",
        discovery: `${issuer}/.well-known/openid-configuration`,
        signIn: "/auth/signin",
        login: "/auth/login",
        logout: "/auth/logout",
        ...(embedded
          ? {
              notice:
                "Development provider: the password of each persona is its username. Not for production.",
            }
          : {}),
      };
    },

    async close() {
      discovery.close();
      await components.close();
    },
  };
}

export type OperatorService = Awaited<ReturnType<typeof createOperatorService>>;
