import type { AuditInput } from "./audit/model";
import type { Config } from "./config";
import { createDataspace, type Dataspace } from "./dataspace";
import { graphDataSource } from "./dataspace/graph-data-source";
import type { GraphStore } from "./graph/store";
import { startLocalDataspace } from "./local-dataspace";
import type { Relational } from "./storage/relational";
import type { Db } from "./storage/database";

/**
 * The container's decision (beside services.ts): with a configured connector the dataspace
 * clients speak to it; without one, the embedded local dataspace is started here, on loopback,
 * and handed to the clients, which speak HTTP to it as to any connector and close it with
 * themselves. The clients (server/dataspace) never start a server.
 */

export type DataSource = (assetId: string, providerContextId?: string) => Promise<unknown>;

export interface StartDataspaceDeps {
  db: Db;
  /** the relational store (demonstration transfers); default: the embedded store on `db` */
  rel?: Relational;
  audit?: { append(input: AuditInput): Promise<unknown> };
  graph?: GraphStore;
  /** the records behind an asset of the embedded dataspace (default: FHIR records from the graph) */
  dataSource?: DataSource;
  /** options of the embedded dataspace */
  local?: { host?: string; port?: number; stepMs?: number };
}

export async function startDataspace(config: Config, deps: StartDataspaceDeps): Promise<Dataspace> {
  const { dataSource, local, graph, ...clientDeps } = deps;
  if (config.connector) return createDataspace(config, clientDeps);
  const embedded = await startLocalDataspace({
    dataDir: config.dataDir,
    host: local?.host,
    port: local?.port,
    stepMs: local?.stepMs,
    dataSource:
      dataSource ??
      (graph
        ? graphDataSource(graph)
        : async () => ({ resourceType: "Bundle", type: "collection", entry: [] })),
    graphBridgeUrl: `${config.publicUrl}/internal/graph-bridge`,
  });
  try {
    return await createDataspace(config, { ...clientDeps, embedded });
  } catch (e) {
    await embedded.close();
    throw e;
  }
}
