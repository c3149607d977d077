import type { AuditLog } from "../audit/log";
import { IDP_CLIENT_ID } from "../auth/idp/provider";
import type { OidcClient } from "../auth/oidc-client";
import type { Config } from "../config";
import type { Dataspace } from "../dataspace";
import { describeUpstream } from "../dataspace/failures";
import { operationDeadline, settle } from "../dataspace/runtime";
import type { GraphStore } from "../graph";
import { badGateway, serviceUnavailable } from "../http/errors";
import type { Db } from "../storage/database";
import type { Relational } from "../storage/relational";
import type { EmbeddedDataspaceRestart } from "./component-model";
import { createComponents, type MutableContainer } from "./components";
import { createDirectory, type DirectoryEntry, type parseDirectoryInput } from "./directory";
import { createMockDsp } from "./mock-dsp";

/**
 * The operator console's back end: components (health, topology, diagnosis, restart), tenants
 * from the tenant manager, the crawler's participant directory, the demonstration DSP catalogues,
 * the federated discovery check and where the identity provider is.
 */

export interface Tenant {
  id: string;
  displayName: string;
  organisation: string | null;
  role: string | null;
  ehdsParticipantType: string | null;
  properties: Record<string, unknown>;
  participants: {
    id: string;
    identifier: string;
    did: string | null;
    participantContextId: string | null;
    state: string;
    errorDetail: string | null;
  }[];
}

export interface DiscoveryTarget {
  id: string;
  did: string;
  displayName: string;
  catalogueUrl: string | null;
  /** hub: the hub's own demonstration catalogue (read in-process); remote: probed over HTTP */
  kind: "hub" | "remote" | "none";
  reachable: boolean | null;
  datasets: number;
  offers: number;
  error: string | null;
  latencyMs: number | null;
}

export interface DiscoveryCheck {
  checkedAt: string;
  readOnly: true;
  crawler: { tokenConfigured: boolean; catalogueRequestPath: string };
  targets: DiscoveryTarget[];
  participants: { total: number; withCatalogue: number; withoutCatalogue: string[] };
  federatedDatasets: {
    id: string;
    title: string;
    participant: string;
    participantDid: string;
    offers: number;
    catalogueDatasetId: string | null;
  }[];
  totals: { datasets: number; offers: number; reachableTargets: number; unreachableTargets: number };
  problems: string[];
  ok: boolean;
}

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
  const ownPrefix = `${config.publicUrl}/api/mock-dsp/`;

  async function probeRemote(url: string): Promise<{
    reachable: boolean;
    datasets: number;
    offers: number;
    error: string | null;
    latencyMs: number;
  }> {
    const t0 = performance.now();
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/ld+json, application/json" },
        body: JSON.stringify({
          "@context": ["https://w3id.org/dspace/2025/1/context.jsonld"],
          "@type": "CatalogRequestMessage",
        }),
        signal: AbortSignal.timeout(Math.min(config.upstreamTimeoutMs, 3000)),
        redirect: "error",
      });
      const latencyMs = Math.round(performance.now() - t0);
      if (!res.ok)
        return { reachable: false, datasets: 0, offers: 0, error: `HTTP ${res.status}`, latencyMs };
      const body = (await res.json()) as Record<string, unknown>;
      const list = (body["dcat:dataset"] ?? body.dataset ?? []) as Record<string, unknown>[];
      const datasets = Array.isArray(list) ? list : [];
      const offers = datasets.reduce(
        (s, d) =>
          s +
          (Array.isArray(d["odrl:hasPolicy"] ?? d.hasPolicy)
            ? ((d["odrl:hasPolicy"] ?? d.hasPolicy) as unknown[]).length
            : 0),
        0,
      );
      return { reachable: true, datasets: datasets.length, offers, error: null, latencyMs };
    } catch (e) {
      return {
        reachable: false,
        datasets: 0,
        offers: 0,
        error:
          e instanceof Error
            ? e.name === "TimeoutError"
              ? "no answer within the time-out"
              : e.message
            : String(e),
        latencyMs: Math.round(performance.now() - t0),
      };
    }
  }

  return {
    /** every component with a fresh probe */
    components: () => components.list(),
    topology: () => components.topology(),
    diagnosis: (name: string) => components.diagnosis(name),
    restart: (name: string, container: MutableContainer, by: string) =>
      components.restart(name, container, by),

    /** the crawler's participant directory */
    directory: () => directory.list(),
    addDirectoryEntry: (input: ReturnType<typeof parseDirectoryInput>, actor: string) =>
      directory.add(input, actor),
    removeDirectoryEntry: (key: string, actor: string) => directory.remove(key, actor),

    /** the demonstration DSP catalogue of a participant */
    catalog: (participant: string) => mockDsp.catalog(participant, config.publicUrl),
    checkCatalogRequest: (body: Record<string, unknown>) => mockDsp.checkRequest(body),

    async tenants(): Promise<Tenant[]> {
      const tm = dataspace.runtime.tenantManager;
      if (!tm) throw serviceUnavailable("No tenant manager is configured (TENANT_MANAGER_URL)");
      const deadline = operationDeadline(dataspace.runtime);
      let tenants;
      try {
        tenants = await tm.listTenants(deadline);
      } catch (e) {
        throw badGateway("Failed to list tenants", describeUpstream(e));
      }
      const str = (v: unknown) => (typeof v === "string" && v ? v : null);
      return Promise.all(
        tenants.map(async (t) => {
          const profiles = await settle(tm.listParticipantProfiles(t.id, deadline));
          const p = t.properties ?? {};
          return {
            id: t.id,
            displayName: str(p.displayName) ?? t.id,
            organisation: str(p.organization) ?? str(p.organisation),
            role: str(p.role),
            ehdsParticipantType: str(p.ehdsParticipantType),
            properties: p,
            participants: profiles.ok
              ? profiles.value.map((pp) => ({
                  id: pp.id,
                  identifier: pp.identifier,
                  did: str(pp.properties?.did) ?? (pp.identifier.startsWith("did:") ? pp.identifier : null),
                  participantContextId: str(pp.properties?.participantContextId),
                  state: pp.error
                    ? "ERROR"
                    : (str((pp as Record<string, unknown>).state) ??
                      (Array.isArray(pp.vpas) && pp.vpas.length ? "ACTIVE" : "PROVISIONING")),
                  errorDetail: pp.errorDetail ?? null,
                }))
              : [],
          };
        }),
      );
    },

    async discoveryCheck(): Promise<DiscoveryCheck> {
      const entries = await directory.list();
      const problems: string[] = [];
      const federated: DiscoveryCheck["federatedDatasets"] = [];
      const targets = await Promise.all(
        entries.map(async (e: DirectoryEntry): Promise<DiscoveryTarget> => {
          const base = { id: e.id, did: e.did, displayName: e.displayName, catalogueUrl: e.catalogueUrl };
          if (!e.catalogueUrl)
            return {
              ...base,
              kind: "none",
              reachable: null,
              datasets: 0,
              offers: 0,
              error: null,
              latencyMs: null,
            };
          if (e.catalogueUrl.startsWith(ownPrefix)) {
            const key = decodeURIComponent(e.catalogueUrl.slice(ownPrefix.length).split("/")[0] ?? "");
            const t0 = performance.now();
            const s = await mockDsp.summary(key);
            const latencyMs = Math.round(performance.now() - t0);
            if (!s)
              return {
                ...base,
                kind: "hub",
                reachable: false,
                datasets: 0,
                offers: 0,
                error: `no marketplace participant ${key}`,
                latencyMs,
              };
            for (const d of s.datasets)
              federated.push({
                id: d.id,
                title: d.title,
                participant: e.displayName,
                participantDid: e.did,
                offers: d.offers,
                catalogueDatasetId: d.datasetId,
              });
            return {
              ...base,
              kind: "hub",
              reachable: true,
              datasets: s.datasets.length,
              offers: s.datasets.reduce((n, d) => n + d.offers, 0),
              error: null,
              latencyMs,
            };
          }
          const r = await probeRemote(e.catalogueUrl);
          return { ...base, kind: "remote", ...r };
        }),
      );
      const without = targets.filter((t) => t.kind === "none").map((t) => t.displayName);
      for (const t of targets)
        if (t.reachable === false)
          problems.push(`${t.displayName}: catalogue at ${t.catalogueUrl} not readable (${t.error})`);
      if (!config.crawlerToken)
        problems.push(
          "CRAWLER_TOKEN is not set: a crawler outside the hub cannot read the demonstration catalogues (a signed-in session still can)",
        );
      const ids = new Map<string, number>();
      for (const d of federated) ids.set(d.id, (ids.get(d.id) ?? 0) + 1);
      for (const [id, n] of ids) if (n > 1) problems.push(`dataset id ${id} is offered by ${n} participants`);
      const reachable = targets.filter((t) => t.reachable === true).length;
      return {
        checkedAt: new Date().toISOString(),
        readOnly: true,
        crawler: {
          tokenConfigured: !!config.crawlerToken,
          catalogueRequestPath: "/api/mock-dsp/{participant}/catalog/request",
        },
        targets,
        participants: {
          total: entries.length,
          withCatalogue: entries.length - without.length,
          withoutCatalogue: without,
        },
        federatedDatasets: federated,
        totals: {
          datasets: targets.reduce((s, t) => s + t.datasets, 0),
          offers: targets.reduce((s, t) => s + t.offers, 0),
          reachableTargets: reachable,
          unreachableTargets: targets.filter((t) => t.reachable === false).length,
        },
        problems,
        ok: targets.every((t) => t.reachable !== false) && federated.length > 0,
      };
    },

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
      await components.close();
    },
  };
}

export type OperatorService = Awaited<ReturnType<typeof createOperatorService>>;
