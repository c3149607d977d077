import { z } from "zod";
import { IDP_CLIENT_ID } from "../auth/idp/provider";
import { createKept, createKeptByInputs, deepFrozen, EVERYONE } from "../http/kept";
import type { Relational } from "../storage/relational";
import type { ComponentDeps, MutableContainer } from "./component-model";
import { createComponents } from "./components";
import { createDirectory } from "./directory";
import { createDiscovery } from "./discovery";
import { createMockDsp } from "./mock-dsp";
import { tenantInputs, tenantsOf, type Tenant } from "./tenants";

/**
 * The operator console's back end: components (health, topology, diagnosis, restart), tenants
 * from the tenant manager, the crawler's participant directory, the demonstration DSP catalogues,
 * the federated discovery check and where the identity provider is.
 */

export type { Tenant } from "./tenants";

const text = z.string();
/** GET /api/keycloak-config: where the identity provider is, for the sign-in banner (no secrets) */
export const identityProviderSchema = z.object({
  issuer: text,
  url: text.describe("the server's address (the issuer without /realms/<realm>)"),
  realm: text.nullable(),
  clientId: text,
  embedded: z.boolean(),
  kind: z.enum(["embedded development provider", "Keycloak", "OpenID provider"]),
  discovery: text,
  signIn: text,
  login: text,
  logout: text,
  notice: text.optional().describe("the embedded provider's warning"),
});

export async function createOperatorService(deps: ComponentDeps & { rel: Relational }) {
  const { config, dataspace } = deps;
  const components = createComponents(deps);
  const directory = await createDirectory(deps.rel, deps.audit, config.publicUrl);
  const mockDsp = createMockDsp({ graph: deps.graph, directory });
  const discovery = createDiscovery({ config, graph: deps.graph, directory, mockDsp });
  // the directory and the catalogues kept per version of what they read (server/http/kept), frozen
  const keptDirectory = createKept<Awaited<ReturnType<typeof directory.list>>>({ max: 2 });
  const keptCatalogs = createKept<Awaited<ReturnType<typeof mockDsp.catalog>>>({ max: 64 });
  const keptTenants = createKeptByInputs<Tenant[]>(4);

  return {
    /** every component as the last round of background probes saw it, and its age (components.ts) */
    components: () => components.list(),
    topology: () => components.topology(),
    /** one component, probed now */
    diagnosis: (name: string) => components.diagnosis(name),
    async restart(name: string, container: MutableContainer, by: string) {
      try {
        return await components.restart(name, container, by);
      } finally {
        // everything kept here is forgotten at once (the components' round is, in components.ts)
        discovery.invalidate();
      }
    },

    /** the crawler's participant directory, kept per version of the directory */
    directory: async () =>
      keptDirectory({ caller: EVERYONE, versions: [await directory.fresh()] }, async () =>
        deepFrozen(await directory.list()),
      ),
    addDirectoryEntry: directory.add,
    /** the directory's entry of a DID: where the dataspace finds a provider's DSP address and data-plane hosts */
    directoryEntry: directory.entryOfDid,
    removeDirectoryEntry: directory.remove,

    /**
     * The demonstration DSP catalogue of a participant, kept per version of the directory and the graph
     * (what it reads); an unknown participant's 404 is not kept
     */
    catalog: async (participant: string) =>
      keptCatalogs(
        { caller: EVERYONE, versions: [await directory.fresh(), deps.graph.version()], args: [participant] },
        async () => deepFrozen(await mockDsp.catalog(participant, config.publicUrl)),
      ),
    checkCatalogRequest: (body: Record<string, unknown>) => mockDsp.checkRequest(body),

    /**
     * the tenants, kept while they are made of the same upstream answers (the read cache's frozen
     * arrays); with a profile lookup that failed, built each time
     */
    tenants: async (): Promise<Tenant[]> => {
      const inputs = await tenantInputs(dataspace);
      if (inputs.profiles.includes(null)) return tenantsOf(inputs);
      return keptTenants(EVERYONE, [inputs.tenants, ...inputs.profiles], () => tenantsOf(inputs));
    },

    /** the last federated discovery check, and its age (discovery.ts) */
    discoveryCheck: () => discovery.check(),

    identityProvider(issuer: string): z.infer<typeof identityProviderSchema> {
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
