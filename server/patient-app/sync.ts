import { ORGANISATIONS } from "../auth/personas";
import { linked, type GraphNode, type GraphStore } from "../graph";
import { sha256b64u } from "../eudi";
import { RELATIONS, isSelfMeasured, type FhirResource } from "./fhir";
import { RECORD_LIMIT } from "./principal";
import type { SyncItemRow, SyncTotals } from "./store";

/** EHR sync: the data holders' records compared with the sync ledger by content hash (README.md, "EHR sync"). */

export interface HolderRecord {
  key: string;
  holder: string;
  resource: FhirResource;
  hash: string;
}

export interface HolderReport extends SyncTotals {
  holder: string;
  name: string;
  did: string | undefined;
}

/** Stable JSON: keys sorted, so the hash changes only when the content does. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object") {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v);
}

export async function readHolderRecords(graph: GraphStore, patient: GraphNode): Promise<HolderRecord[]> {
  const patientHolder = typeof patient.properties.holder === "string" ? patient.properties.holder : "unknown";
  const out: HolderRecord[] = [];
  for (const [type, toResource] of Object.entries(RELATIONS)) {
    for (const node of await linked(graph, patient.id, type, "out", RECORD_LIMIT)) {
      if (isSelfMeasured(node)) continue;
      const holder = typeof node.properties.holder === "string" ? node.properties.holder : patientHolder;
      const resource = toResource(node, patient.id, patientHolder);
      out.push({
        key: `${resource.resourceType}/${resource.id}`,
        holder,
        resource,
        hash: await sha256b64u(canonical(resource)),
      });
    }
  }
  return out;
}

export function planSync(records: HolderRecord[], ledger: SyncItemRow[]) {
  const known = new Map(ledger.map((r) => [r.resource_key, r]));
  const seen = new Set<string>();
  const byHolder = new Map<string, HolderReport>();
  const reportFor = (holder: string) => {
    let r = byHolder.get(holder);
    if (!r) {
      const org = ORGANISATIONS.find((o) => o.slug === holder);
      r = {
        holder,
        name: org?.displayName ?? holder,
        did: org?.did,
        added: 0,
        updated: 0,
        unchanged: 0,
        removed: 0,
      };
      byHolder.set(holder, r);
    }
    return r;
  };
  const upserts: HolderRecord[] = [];
  const changes: { key: string; change: "added" | "updated" | "removed"; holder: string }[] = [];
  for (const rec of records) {
    seen.add(rec.key);
    const prev = known.get(rec.key);
    const report = reportFor(rec.holder);
    if (prev?.hash === rec.hash) report.unchanged++;
    else {
      const change = prev ? "updated" : "added";
      report[change]++;
      upserts.push(rec);
      changes.push({ key: rec.key, change, holder: rec.holder });
    }
  }
  const removals = ledger.filter((r) => !seen.has(r.resource_key));
  for (const r of removals) {
    reportFor(r.holder).removed++;
    changes.push({ key: r.resource_key, change: "removed", holder: r.holder });
  }
  const report = [...byHolder.values()];
  const sum = (k: keyof SyncTotals) => report.reduce((n, r) => n + r[k], 0);
  return {
    upserts,
    removals,
    report,
    totals: {
      added: sum("added"),
      updated: sum("updated"),
      unchanged: sum("unchanged"),
      removed: sum("removed"),
    },
    changes,
  };
}
