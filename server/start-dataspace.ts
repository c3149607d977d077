import type { AuditInput } from "./audit/model";
import type { Config } from "./config";
import { createDataspace, reconnectClients, serviceEndpoints, type Dataspace } from "./dataspace";
import { catalogueHolder, graphDataSource } from "./dataspace/graph-data-source";
import type { GraphStore } from "./graph/store";
import { startLocalDataspace, type LocalDataspace, type LocalDataspaceOptions } from "./local-dataspace";
import { builtWorkerFile, startLocalDataspaceWorker } from "./local-dataspace/worker-host";
import type { Relational } from "./storage/relational";
import type { Db } from "./storage/database";

/**
 * The container's decision (beside services.ts): with a configured connector the dataspace
 * clients speak to it; without one, the embedded local dataspace is started here, on loopback,
 * and handed to the clients, which speak HTTP to it as to any connector and close it with
 * themselves. The clients (server/dataspace) never start a server.
 */

export type DataSource = (assetId: string, holder?: string) => Promise<unknown>;

/**
 * The embedded data plane's data: what the graph bridge answers for the asset and agreement, released
 * at the source (graph-bridge.ts `releasedAnswer`); a refusal fails the pull or push, as it fails a
 * real EDC data plane.
 */
const releasedBy =
  (dataspace: () => Dataspace | undefined): LocalDataspaceOptions["dataSource"] =>
  async (assetId, providerContextId, agreementId) => {
    const answer = providerContextId
      ? await dataspace()?.releasedAnswer(providerContextId, assetId, agreementId)
      : undefined;
    if (answer?.status !== 200) throw new Error(String(answer?.body.error ?? "The asset has no provider"));
    return answer.body;
  };

export interface StartDataspaceDeps {
  db: Db;
  /** the relational store (demonstration transfers); default: the embedded store on `db` */
  rel?: Relational;
  audit?: { append(input: AuditInput): Promise<unknown> };
  graph?: GraphStore;
  /** the records behind an asset (default: FHIR records from the graph), released by the bridge's rule */
  dataSource?: DataSource;
  /**
   * options of the embedded dataspace; `worker`: the built worker to run it in its own thread
   * (default: build/server/local-dataspace-worker.js beside the server bundle, when present), or
   * false to run it on the hub's event loop (tests from source)
   */
  local?: { host?: string; port?: number; stepMs?: number; worker?: URL | false };
}

/**
 * Starts the embedded dataspace: in its own worker thread when the server runs from its build (its
 * own event loop: its commits and answers no longer queue behind the hub's requests; decision
 * 0022), otherwise in-process. `counter` keeps the change count across restarts.
 */
function startEmbedded(
  config: Config,
  dataspace: () => Dataspace | undefined,
  at: Pick<LocalDataspaceOptions, "host" | "port" | "stepMs">,
  worker: URL | false | undefined,
  counter: SharedArrayBuffer,
) {
  const options: LocalDataspaceOptions = {
    dataDir: config.dataDir,
    ...at,
    dataSource: releasedBy(dataspace),
    graphBridgeUrl: `${config.publicUrl}/internal/graph-bridge`,
  };
  const workerFile = worker === undefined ? builtWorkerFile() : worker;
  return workerFile
    ? startLocalDataspaceWorker({ ...options, workerFile, counter })
    : startLocalDataspace({ ...options, changeCounter: new Int32Array(counter) });
}
const counters = new WeakMap<Dataspace, { counter: SharedArrayBuffer; worker: URL | false | undefined }>();

export async function startDataspace(config: Config, deps: StartDataspaceDeps): Promise<Dataspace> {
  const { dataSource, local, graph, ...rest } = deps;
  // the graph bridge reads the same records as the embedded data plane; an asset's datasets are the catalogue's
  const clientDeps = {
    ...rest,
    bridgeSource: dataSource
      ? (assetId: string, scope: { holder?: string }) => dataSource(assetId, scope.holder)
      : graph && graphDataSource(graph),
    datasetHolder: graph && catalogueHolder(graph),
  };
  if (config.connector) return createDataspace(config, clientDeps);
  const counter = new SharedArrayBuffer(4);
  let dataspace: Dataspace | undefined;
  const embedded = await startEmbedded(
    config,
    () => dataspace,
    { host: local?.host, port: local?.port, stepMs: local?.stepMs },
    local?.worker,
    counter,
  );
  try {
    dataspace = await createDataspace(config, { ...clientDeps, embedded });
    counters.set(dataspace, { counter, worker: local?.worker });
    return dataspace;
  } catch (e) {
    await embedded.close();
    throw e;
  }
}

/**
 * How the operator console restarts the embedded dataspace (handed to it by the container, so the
 * operator capability neither starts a server nor builds clients): stop the running instance,
 * start a new one on the same address, and give the dataspace fresh clients for it. The first
 * instance belongs to the dataspace; later ones are closed by close().
 */
export function embeddedDataspaceRestart(config: Config, dataspace: Dataspace) {
  let restartedLocal: LocalDataspace | undefined;
  return {
    async restart(): Promise<void> {
      const l = dataspace.local;
      if (!l) throw new Error("no embedded dataspace");
      const port = Number(new URL(l.url).port);
      const host = new URL(l.url).hostname;
      // the running instance alone: the dataspace's own one (closed again, idempotently, by
      // dataspace.close()) or a restarted one; its pool and its cut-off retries go on
      await (restartedLocal ?? l).close();
      const first = counters.get(dataspace);
      const next = await startEmbedded(
        config,
        () => dataspace,
        { host, port },
        first?.worker,
        first?.counter ?? new SharedArrayBuffer(4),
      );
      restartedLocal = next;
      // the services as configured, the embedded one's where none is (a configured issuer stays configured)
      reconnectClients(
        dataspace.runtime,
        ["connector", "tenant-manager", "issuer", "identity-hub"],
        serviceEndpoints(config, next)!,
      );
    },
    async close(): Promise<void> {
      await restartedLocal?.close();
    },
  };
}
