/**
 * The deterministic synthetic knowledge graph, streamed in batches: first the ontology (l5),
 * then the marketplace and catalogue (l1, l2), then patients in batches of `batchSize`, each
 * patient's FHIR records (l3) followed by its OMOP rows (l4). Every edge points at a node of
 * its own batch or of an earlier one. Memory stays flat whatever the population size: a
 * patient's records are built from its own random stream and dropped once yielded.
 */
import { type EdgeRecord, type NodeRecord } from "../model";
import { DATASET_IDS, datasetsOf, writeCatalogue } from "./catalogue";
import { buildTimeline } from "./clinical";
import { writeFhir } from "./fhir";
import { writeMarketplace } from "./marketplace";
import { writeOmop } from "./omop";
import { buildOntology } from "./ontology";
import { STREAM, drawProfile } from "./population";
import { dayOf, Prng } from "./prng";
import { RecordBuffer } from "./records";

export const DEFAULT_SEED = 20250630;
const DEFAULT_BATCH_SIZE = 250;

export interface GenerateOptions {
  patients: number;
  seed?: number;
  /** patients per batch */
  batchSize?: number;
  /** the day (YYYY-MM-DD) the marketplace's contracts and permits are dated from; see writeMarketplace */
  marketplaceDay?: string;
  /**
   * patients 1..resumeAfter are already stored (an interrupted seed): their batches are not made; the
   * shared batches (ontology, marketplace, catalogue) are, and a store upserts them again
   */
  resumeAfter?: number;
}

export interface GraphBatch {
  nodes: NodeRecord[];
  edges: EdgeRecord[];
  /** patients emitted so far, this batch included */
  patientsDone: number;
}

function patientStream(seed: number, index: number): Prng {
  return new Prng(seed, STREAM.patient, index);
}

/** how many patients each dataset covers, counted over the profiles */
function countDatasetMembers(seed: number, patients: number): Map<string, number> {
  const counts = new Map(DATASET_IDS.map((id) => [id, 0]));
  for (let i = 1; i <= patients; i++) {
    // the patient's profile alone, drawn as the generator draws it
    for (const id of datasetsOf(drawProfile(patientStream(seed, i), seed, i)))
      counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

function writePatient(out: RecordBuffer, seed: number, index: number): void {
  const rng = patientStream(seed, index);
  const profile = drawProfile(rng, seed, index);
  const timeline = buildTimeline(rng, profile);
  writeFhir(out, rng, profile, timeline);
  writeOmop(out, profile, timeline);
  for (const dataset of datasetsOf(profile)) out.edge(dataset, "INCLUDES", profile.id);
}

export function* generateGraph(opts: GenerateOptions): Generator<GraphBatch> {
  const seed = opts.seed ?? DEFAULT_SEED;
  const batchSize = Math.max(1, Math.floor(opts.batchSize ?? DEFAULT_BATCH_SIZE));
  const patients = Math.max(0, Math.floor(opts.patients));

  const ontology = buildOntology();
  yield { nodes: ontology.nodes, edges: ontology.edges, patientsDone: 0 };

  const market = new RecordBuffer();
  writeMarketplace(market, seed, opts.marketplaceDay ? dayOf(opts.marketplaceDay) : undefined);
  writeCatalogue(market, countDatasetMembers(seed, patients));
  yield { nodes: market.nodes, edges: market.edges, patientsDone: 0 };

  const first = Math.max(0, Math.floor(opts.resumeAfter ?? 0)) + 1;
  for (let start = first; start <= patients; start += batchSize) {
    const end = Math.min(patients, start + batchSize - 1);
    const out = new RecordBuffer();
    for (let i = start; i <= end; i++) writePatient(out, seed, i);
    yield { nodes: out.nodes, edges: out.edges, patientsDone: end };
  }
}
