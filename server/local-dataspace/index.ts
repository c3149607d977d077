import { DSP_PROTOCOL, type DataspaceEndpoints } from "../dataspace-protocol";
import { loadOrCreateApiKey, loadOrCreateClient, localAuthenticator, registerTokenEndpoint } from "./auth";
import { registerDsp } from "./catalog";
import { dspAddressOf, participantByDid, type LocalContext } from "./context";
import { registerIdentityHubApi, registerIssuerApi } from "./credentials-api";
import { notFound, Router, startHttpServer } from "./http";
import { issuerDidDocument } from "./issuer";
import { loadOrCreateKey } from "./keys";
import { registerManagementApi } from "./management-api";
import { resumeNegotiations } from "./negotiations";
import { createScheduler } from "./scheduler";
import { seedLocalDataspace } from "./seed";
import { openLocalStore } from "./store";
import { registerTenantManagerApi, resumeProvisioning } from "./tenant-manager-api";
import { registerDataPlane, resumeTransfers } from "./transfers";

/**
 * The embedded development dataspace: a real HTTP server on loopback speaking the connector
 * management API, DSP catalogue requests, a data plane, the tenant manager API, the issuer admin
 * API, the identity hub API and an OAuth2 token endpoint, with its state in SQLite. It is for
 * development and demonstration only, and says so in every response header and its root document.
 */

export interface LocalDataspaceOptions {
  /** DATA_DIR; ":memory:" keeps nothing */
  dataDir: string;
  host?: string;
  /** 0 (default) picks a free port */
  port?: number;
  /** delay between two steps of a negotiation, transfer or provisioning (default 300 ms) */
  stepMs?: number;
  /** the records of an asset, pulled through the data plane (provider's context id, agreement id) */
  dataSource: (assetId: string, providerContextId?: string, agreementId?: string) => Promise<unknown>;
  /** base URL of the hub's graph bridge (the data address of seeded assets) */
  graphBridgeUrl?: string;
  onError?: (e: unknown) => void;
  /** one Int32 in shared memory that counts the changes (the worker form reads it from the hub's thread) */
  changeCounter?: Int32Array;
}

export interface LocalDataspace extends DataspaceEndpoints {
  /**
   * Increases with every change of the dataspace's state (a write through its APIs or a step of
   * its state machines): the hub's read cache is valid while this number stays the same.
   */
  changeVersion(): number;
  close(): Promise<void>;
}

export const LOCAL_API_VERSION = "v4alpha";

export async function startLocalDataspace(options: LocalDataspaceOptions): Promise<LocalDataspace> {
  const log = options.onError ?? ((e: unknown) => console.error("[local-dataspace]", e));
  const store = openLocalStore(options.dataDir, options.changeCounter);
  try {
    const scheduler = createScheduler(log);
    const ctx: LocalContext = {
      store,
      scheduler,
      baseUrl: "",
      stepMs: options.stepMs ?? 300,
      didHost: "participants.local-dataspace",
      keys: {
        tokens: await loadOrCreateKey(store, "tokens"),
        dataPlane: await loadOrCreateKey(store, "data-plane"),
        issuer: await loadOrCreateKey(store, "issuer"),
      },
      issuer: { contextId: "issuer", did: "did:web:issuer.local-dataspace" },
      graphBridgeUrl: (options.graphBridgeUrl ?? "http://127.0.0.1/internal/graph-bridge").replace(
        /\/+$/,
        "",
      ),
      dataSource: options.dataSource,
      now: Date.now,
      log,
    };
    const client = loadOrCreateClient(ctx);
    const apiKey = loadOrCreateApiKey(ctx);

    const router = new Router();
    router.add("GET", "/", () => ({ body: rootDocument(ctx) }), { authenticated: false });
    router.add("GET", "/health", () => ({ body: { status: "ok", development: true } }), {
      authenticated: false,
    });
    router.add(
      "GET",
      "/dids/:did",
      (req) => {
        const did = req.params.did;
        if (did === ctx.issuer.did) return { body: issuerDidDocument(ctx) };
        const p = participantByDid(ctx, did);
        if (!p) throw notFound(`No DID document for ${did}`);
        return {
          body: {
            "@context": ["https://www.w3.org/ns/did/v1"],
            id: did,
            service: [
              { id: `${did}#dsp`, type: "ProtocolEndpoint", serviceEndpoint: dspAddressOf(ctx, p["@id"]) },
              {
                id: `${did}#credential-service`,
                type: "CredentialService",
                serviceEndpoint: `${ctx.baseUrl}/identity/v1alpha/participants`,
              },
            ],
          },
        };
      },
      { authenticated: false },
    );
    registerTokenEndpoint(router, ctx, client);
    registerManagementApi(router, ctx);
    registerDsp(router, ctx);
    registerDataPlane(router, ctx);
    registerTenantManagerApi(router, ctx);
    registerIssuerApi(router, ctx);
    registerIdentityHubApi(router, ctx);

    const server = await startHttpServer({
      host: options.host ?? "127.0.0.1",
      port: options.port ?? 0,
      router,
      authenticate: localAuthenticator(ctx, apiKey),
      onError: log,
    });
    ctx.baseUrl = server.url;
    try {
      await seedLocalDataspace(ctx);
    } catch (e) {
      scheduler.close();
      await server.close();
      throw e;
    }
    resumeNegotiations(ctx);
    resumeTransfers(ctx);
    resumeProvisioning(ctx);

    let closed = false;
    return {
      url: server.url,
      managementUrl: `${server.url}/management`,
      apiVersion: LOCAL_API_VERSION,
      tenantManagerUrl: `${server.url}/tenant-manager`,
      issuerUrl: `${server.url}/issuer`,
      identityHubUrl: `${server.url}/identity`,
      tokenUrl: `${server.url}/oauth2/token`,
      protocolBaseUrl: `${server.url}/api/dsp`,
      clientId: client.clientId,
      clientSecret: client.clientSecret,
      // one runtime, one super-user: the same key for both APIs
      issuerApiKey: apiKey,
      identityHubApiKey: apiKey,
      issuerContextId: ctx.issuer.contextId,
      issuerDid: ctx.issuer.did,
      changeVersion: () => store.version(),
      async close() {
        if (closed) return;
        closed = true;
        scheduler.close();
        await server.close();
        store.close();
      },
    };
  } catch (e) {
    store.close();
    throw e;
  }
}

function rootDocument(ctx: LocalContext) {
  return {
    name: "Local development dataspace",
    development: true,
    notice:
      "This is an embedded development and demonstration connector with its tenant manager, issuer and identity hub. It is not a production connector: point CONNECTOR_MANAGEMENT_URL at a real connector for production.",
    protocol: DSP_PROTOCOL,
    endpoints: {
      management: `${ctx.baseUrl}/management/${LOCAL_API_VERSION}/participants`,
      protocol: `${ctx.baseUrl}/api/dsp/{participantContextId}/2025-1`,
      dataPlane: `${ctx.baseUrl}/public/{transferProcessId}`,
      tenantManager: `${ctx.baseUrl}/tenant-manager/api/v1alpha1`,
      issuer: `${ctx.baseUrl}/issuer/v1alpha/participants/{base64url(issuerContextId)}`,
      identityHub: `${ctx.baseUrl}/identity/v1alpha/participants/{base64url(participantContextId)}`,
      token: `${ctx.baseUrl}/oauth2/token`,
      didDocuments: `${ctx.baseUrl}/dids/{did}`,
    },
    issuer: ctx.issuer.did,
  };
}
