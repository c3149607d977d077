import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { type EdgeRecord, type NodeRecord } from "../model";
import { SCHEMA } from "../neo4j-records";
import { type GraphStore } from "../store";
import {
  RELATIONSHIPS_FILE,
  RELATIONSHIPS_HEADER,
  nodesFile,
  writeCsv,
} from "../../../scripts/neo4j-export/csv";
import { writeCypher } from "../../../scripts/neo4j-export/cypher";
import { generateGraph } from "./generate";
import { createProgressBar } from "./progress";
import { seedStore } from "./seed";

const PATIENTS = 20;

function countGraph(patients: number) {
  let nodes = 0;
  let edges = 0;
  for (const b of generateGraph({ patients })) {
    nodes += b.nodes.length;
    edges += b.edges.length;
  }
  return { nodes, edges };
}

class Collector extends Writable {
  text = "";
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void) {
    this.text += chunk.toString("utf8");
    done();
  }
}

/** true when (), [] and {} balance outside double-quoted string literals */
function balanced(statement: string): boolean {
  const closing: Record<string, string> = { ")": "(", "]": "[", "}": "{" };
  const stack: string[] = [];
  let inString = false;
  for (let i = 0; i < statement.length; i++) {
    const ch = statement[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if ("([{".includes(ch)) stack.push(ch);
    else if (ch in closing && stack.pop() !== closing[ch]) return false;
  }
  return !inString && stack.length === 0;
}

/** splits one CSV line into fields, honouring quotes */
function csvFields(line: string): string[] {
  const fields: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted && ch === '"' && line[i + 1] === '"') {
      field += '"';
      i++;
    } else if (ch === '"') {
      quoted = !quoted;
    } else if (ch === "," && !quoted) {
      fields.push(field);
      field = "";
    } else {
      field += ch;
    }
  }
  fields.push(field);
  return fields;
}

describe("writeCypher", () => {
  it("writes the adapter's schema first, then balanced statements for every node and relationship", async () => {
    const sink = new Collector();
    const summary = await writeCypher(sink, { patients: PATIENTS });
    expect(summary).toEqual(countGraph(PATIENTS));

    const statements = sink.text
      .split(/;\n/)
      .map((s) => s.replace(/^(\/\/.*\n|\n)+/, "").trim())
      .filter(Boolean);
    expect(statements.slice(0, SCHEMA.length)).toEqual(SCHEMA);
    const rest = statements.slice(SCHEMA.length);
    expect(rest.every((s) => s.startsWith("UNWIND ["))).toBe(true);
    for (const s of statements) expect(balanced(s), s.slice(0, 120)).toBe(true);

    const nodeRows = rest
      .filter((s) => s.includes("\nCREATE (n:"))
      .reduce((sum, s) => sum + s.split('{id: "').length - 1, 0);
    const edgeRows = rest
      .filter((s) => s.includes("\nMATCH (a:"))
      .reduce((sum, s) => sum + s.split('{id: "').length - 1, 0);
    expect(nodeRows).toBe(summary.nodes);
    expect(edgeRows).toBe(summary.edges);
    // every node carries :GraphNode, its layer and its place (seq: 1, 2, … in export order)
    for (const s of rest.filter((x) => x.includes("\nCREATE (n:")))
      expect(s).toMatch(/\nCREATE \(n:GraphNode:`[A-Za-z0-9]+`\) SET n = row$/);
    const seqs = [...sink.text.matchAll(/, seq: (\d+)[,}]/g)].map((m) => Number(m[1]));
    expect(seqs.sort((a, b) => a - b)).toEqual(Array.from({ length: summary.nodes }, (_, i) => i + 1));
    expect(sink.text).toContain("MATCH (a:GraphNode {id: row.source}) MATCH (b:GraphNode {id: row.target})");
    expect(sink.text).toContain("CREATE (a)-[r:`HAS_ENCOUNTER`]->(b) SET r.id = row.id;");
  });
});

describe("writeCsv", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), "synthetic-csv-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("writes neo4j-admin import files with typed headers", async () => {
    const summary = await writeCsv(dir, { patients: PATIENTS });
    expect(summary).toMatchObject(countGraph(PATIENTS));
    expect(readdirSync(dir).sort()).toEqual([...summary.nodeFiles, ...summary.relationshipFiles].sort());

    let nodeLines = 0;
    for (const file of summary.nodeFiles) {
      const [header, ...rows] = readFileSync(path.join(dir, file), "utf8").trimEnd().split("\n");
      const columns = header.split(",");
      expect(columns.slice(0, 4)).toEqual(["id:ID", ":LABEL", "layer", "seq:long"]);
      for (const row of rows) expect(csvFields(row)[1]).toBe(`GraphNode;${file.slice(6, -4)}`);
      for (const c of columns.slice(4))
        expect(c).toMatch(/^[a-z][A-Za-z0-9]*:(string|long|double|boolean|string\[\]|long\[\]|double\[\])$/);
      for (const row of rows) expect(csvFields(row)).toHaveLength(columns.length);
      nodeLines += rows.length;
    }
    expect(nodeLines).toBe(summary.nodes);

    const header = (label: string) => readFileSync(path.join(dir, nodesFile(label)), "utf8").split("\n")[0];
    expect(header("HealthDataset")).toContain("recordCount:long");
    expect(header("HealthDataset")).toContain("conformsTo:string[]");
    expect(header("HealthDataset")).toContain("personalData:boolean");
    expect(header("Observation")).toContain("value:double");
    expect(header("Patient")).toContain("birthDate:string");

    const [relHeader, ...rels] = readFileSync(path.join(dir, RELATIONSHIPS_FILE), "utf8")
      .trimEnd()
      .split("\n");
    expect(relHeader).toBe(RELATIONSHIPS_HEADER);
    expect(rels).toHaveLength(summary.edges);
    expect(csvFields(rels[0])).toHaveLength(4);
  });
});

describe("seedStore", () => {
  it("streams every batch into the store and reports progress", async () => {
    const batches: { nodes: NodeRecord[]; edges: EdgeRecord[] }[] = [];
    const store = {
      importBatch: async (nodes: NodeRecord[], edges: EdgeRecord[]) => void batches.push({ nodes, edges }),
    };
    const progress: [number, number][] = [];
    const result = await seedStore(store as unknown as GraphStore, {
      patients: PATIENTS,
      onProgress: (done, total) => progress.push([done, total]),
    });
    const expected = countGraph(PATIENTS);
    expect(result).toMatchObject(expected);
    expect(batches.reduce((n, b) => n + b.nodes.length, 0)).toBe(expected.nodes);
    expect(progress.at(-1)).toEqual([PATIENTS, PATIENTS]);
  });
});

describe("createProgressBar", () => {
  function stream(isTTY: boolean) {
    const writes: string[] = [];
    return { writes, isTTY, columns: 100, write: (text: string) => void writes.push(text) };
  }

  it("prints a line per 10% when stderr is not a terminal", () => {
    const s = stream(false);
    let now = 0;
    const bar = createProgressBar({ label: "Seeding", total: 1000, stream: s, now: () => now });
    for (let done = 0; done <= 1000; done += 50) {
      now += 100;
      bar.update(done);
    }
    bar.finish();
    expect(s.writes).toHaveLength(11);
    expect(s.writes[0]).toMatch(/^Seeding:\s+10% 100\/1,000 patients · \d+\/s · ETA \d\d:\d\d\n$/);
    expect(s.writes.at(-1)).toMatch(/^Seeding: 1,000 patients in 00:02\n$/);
  });

  it("redraws one line with a bar, rate and ETA on a terminal", () => {
    const s = stream(true);
    let now = 0;
    const bar = createProgressBar({ label: "Seeding", total: 200, stream: s, now: () => now });
    now = 1000;
    bar.update(100);
    expect(s.writes[0]).toMatch(/^\r.*Seeding \[█+░+\]\s+50% 100\/200 patients · 100\/s · ETA 00:01/);
    now = 1050;
    bar.update(150); // within the redraw interval: not drawn
    expect(s.writes).toHaveLength(1);
    now = 2000;
    bar.update(200);
    bar.finish();
    expect(s.writes.join("")).toContain("100% 200/200");
  });
});
