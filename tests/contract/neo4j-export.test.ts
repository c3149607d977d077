import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PASCAL_CASE, UPPER_SNAKE_CASE } from "../../server/graph/model";
import { writeCsv } from "../../server/graph/synthetic/csv";
import { writeCypher } from "../../server/graph/synthetic/cypher";
import { emptyNeo4j, testNeo4j, testNeo4jDriver } from "../support/neo4j";
import { graphAnswers, startTestServer } from "../support/server";
import { signIn } from "../support/signin";

/**
 * The exports of scripts/seed-export.ts loaded into a real Neo4j, then a hub started on it: the hub
 * serves the loaded graph as it is (it does not seed on top, no 503). The Cypher script is run statement
 * by statement with the driver (what cypher-shell -f does); the CSV files are read as
 * `neo4j-admin database import full` reads them (typed headers, `;` between labels and array items) and
 * written with the driver, since the embedded Neo4j of the tests has no neo4j-admin (decision 0046).
 */

const neo = testNeo4j();
const PATIENTS = 20;

class Collector extends Writable {
  text = "";
  override _write(chunk: Buffer, _enc: string, done: () => void) {
    this.text += chunk.toString();
    done();
  }
}

async function loadCypher(script: string) {
  const statements = script
    .split(/;\n/)
    .map((s) => s.replace(/^(\/\/.*\n|\n)+/, "").trim())
    .filter(Boolean);
  const driver = testNeo4jDriver();
  try {
    for (const s of statements) await driver.executeQuery(s);
  } finally {
    await driver.close();
  }
}

function csvRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      row.push(field);
      field = "";
    } else if (ch === "\n") {
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
    } else field += ch;
  }
  if (field || row.length) rows.push([...row, field]);
  return rows;
}

/** one field as neo4j-admin reads it under its header's type; undefined: no property */
function typed(raw: string, type: string): unknown {
  if (raw === "") return undefined;
  const one = (v: string, t: string) =>
    t === "long" || t === "double" ? Number(v) : t === "boolean" ? v === "true" : v;
  if (type.endsWith("[]")) return raw.split(";").map((v) => one(v, type.slice(0, -2)));
  return one(raw, type);
}

async function loadCsv(dir: string, nodeFiles: string[], relationshipFiles: string[]) {
  const driver = testNeo4jDriver();
  try {
    for (const file of nodeFiles) {
      const [header, ...rows] = csvRows(readFileSync(path.join(dir, file), "utf8"));
      const labels = rows[0][header.indexOf(":LABEL")].split(";");
      for (const l of labels) if (!PASCAL_CASE.test(l)) throw new Error(`label ${l}`);
      const props = rows.map((r) => {
        const p: Record<string, unknown> = {};
        header.forEach((h, i) => {
          if (h === ":LABEL") return;
          const [key, type = "string"] = h.split(":");
          const v = typed(r[i], type === "ID" ? "string" : type);
          if (v !== undefined) p[key] = v;
        });
        return p;
      });
      await driver.executeQuery(`UNWIND $props AS p CREATE (n:${labels.join(":")}) SET n = p`, { props });
    }
    for (const file of relationshipFiles) {
      const [, ...rows] = csvRows(readFileSync(path.join(dir, file), "utf8"));
      const byType = new Map<string, { s: string; t: string; id: string }[]>();
      for (const [s, t, type, id] of rows) {
        if (!UPPER_SNAKE_CASE.test(type)) throw new Error(`type ${type}`);
        byType.set(type, [...(byType.get(type) ?? []), { s, t, id }]);
      }
      // neo4j-admin matches :START_ID/:END_ID against the nodes' id:ID column
      for (const [type, rels] of byType)
        await driver.executeQuery(
          `UNWIND $rels AS r MATCH (a:GraphNode {id: r.s}) MATCH (b:GraphNode {id: r.t}) CREATE (a)-[:${type} {id: r.id}]->(b)`,
          { rels },
        );
    }
  } finally {
    await driver.close();
  }
}

/** a hub on the loaded Neo4j (not emptied: NEO4J_URI given), and what its graph routes answer */
async function hubServes(expectedNodes: number, expectedEdges: number) {
  const server = await startTestServer({ ...neo!, SEED_PATIENTS: String(PATIENTS) });
  try {
    await graphAnswers(server);
    const admin = await signIn(server.url, "admin");
    const all = await admin.api("/api/graph?layer=all&limit=50");
    expect(all.status).toBe(200);
    const body = await all.json();
    expect(body.meta.totalNodes).toBe(expectedNodes);
    expect(body.meta.totalEdges).toBe(expectedEdges);
    expect(body.nodes).toHaveLength(50);
    const node = await admin.api("/api/graph/node?id=patient-000001");
    expect(node.status).toBe(200);
    const expand = await admin.api("/api/graph/expand?id=patient-000001&depth=1");
    expect(expand.status).toBe(200);
    expect((await expand.json()).nodes.length).toBeGreaterThan(1);
    const regulator = await signIn(server.url, "regulator");
    const validate = await regulator.api("/api/graph/validate");
    const v = await validate.json();
    expect(validate.status, JSON.stringify(v)).toBe(200);
    expect(v.valid).toBe(true);
    expect(v.violations).toEqual([]);
    expect(v.layers.l3.labels.Patient).toBe(PATIENTS);
  } finally {
    await server.close();
  }
}

describe.runIf(!!neo)("seed-export loaded into a real Neo4j, served by the hub", () => {
  let dir: string;
  beforeAll(() => void (dir = mkdtempSync(path.join(tmpdir(), "hub-export-"))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("the Cypher export", async () => {
    await emptyNeo4j();
    const sink = new Collector();
    const summary = await writeCypher(sink, { patients: PATIENTS });
    await loadCypher(sink.text);
    await hubServes(summary.nodes, summary.edges);
  }, 300_000);

  it("the CSV export", async () => {
    await emptyNeo4j();
    const summary = await writeCsv(dir, { patients: PATIENTS });
    await loadCsv(dir, summary.nodeFiles, summary.relationshipFiles);
    await hubServes(summary.nodes, summary.edges);
  }, 300_000);
});
