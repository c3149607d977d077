import type { DataspaceEndpoints } from "../dataspace-protocol";
import type { LocalDataspaceOptions } from "./index";

/** What the hub and the embedded dataspace's worker thread (worker.ts, worker-host.ts) say to each other. */

export interface WorkerData extends Pick<
  LocalDataspaceOptions,
  "dataDir" | "host" | "port" | "stepMs" | "graphBridgeUrl"
> {
  /** one Int32 the worker's store counts its changes in (the hub's read cache reads it) */
  counter: SharedArrayBuffer;
}

/** from the worker to the hub */
export type WorkerReply =
  | { type: "ready"; endpoints: DataspaceEndpoints }
  | { type: "failed"; message: string }
  | { type: "data"; id: number; assetId: string; providerContextId?: string; agreementId?: string }
  | { type: "closed" };

/** from the hub to the worker */
export type WorkerRequest =
  | { type: "data"; id: number; ok: true; value: unknown }
  | { type: "data"; id: number; ok: false; error: string }
  | { type: "close" };
