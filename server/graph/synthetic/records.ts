/**
 * Builders for the generator's node and edge records, so every record gets its layer from
 * its label and every edge the same id scheme: `<source>:<TYPE>:<target>` (a graph holds at
 * most one edge of a type between two nodes, so the id is unique).
 */
import { layerOfKind, type EdgeRecord, type NodeRecord, type Properties } from "../model";

/** a batch of records under construction */
export class RecordBuffer {
  readonly nodes: NodeRecord[] = [];
  readonly edges: EdgeRecord[] = [];

  node(label: string, id: string, properties: Properties): string {
    this.nodes.push({ id, label, layer: layerOfKind(label), properties });
    return id;
  }

  edge(source: string, type: string, target: string): void {
    this.edges.push({ id: `${source}:${type}:${target}`, source, target, type });
  }
}
