/**
 * What the Cypher and CSV writers share: their options and summary, and writing text to Node
 * streams with back-pressure.
 */
import { once } from "node:events";
import { type Writable } from "node:stream";
import { type GenerateOptions } from "../../server/graph/synthetic/generate";

export interface ExportOptions extends GenerateOptions {
  onProgress?: (done: number, total: number) => void;
}

export interface ExportSummary {
  nodes: number;
  edges: number;
}

export async function writeText(out: Writable, text: string): Promise<void> {
  if (!out.write(text)) await once(out, "drain");
}

export async function endStream(out: Writable): Promise<void> {
  out.end();
  await once(out, "finish");
}
