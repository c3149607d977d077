import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { DEFAULT_FIXTURES_DIR, type FixtureFile } from "../../server/static-mode/fixture-book";
import { z } from "zod";
import { healthDatasetSchema } from "../../server/catalogue/service";
import {
  graphAnswer,
  graphNodeAnswer,
  nodeAnswer,
  relationshipAnswer,
  validationAnswer,
} from "../../server/graph/contract";
import { insights, patient, profile, programme } from "../../server/patient/contract";
import { REGISTRY, type MethodEntry } from "../../server/static-mode/registry";

/**
 * The committed fixtures of static mode against the zod schemas of the routes they stand in for
 * (SCHEMAS below): a fixture that no longer parses fails here, naming the file and the call.
 */

/** every fixture file under `dir` */
function readAllFixtures(dir: string): FixtureFile[] {
  if (!existsSync(dir)) return [];
  const out: FixtureFile[] = [];
  for (const service of readdirSync(dir, { withFileTypes: true })) {
    if (!service.isDirectory()) continue;
    for (const f of readdirSync(path.join(dir, service.name))) {
      if (!f.endsWith(".json")) continue;
      out.push(JSON.parse(readFileSync(path.join(dir, service.name, f), "utf8")) as FixtureFile);
    }
  }
  return out;
}

/** a stored dataset: the route's schema plus the `holder` slug the service adds */
const storedDatasetSchema = healthDatasetSchema.extend({ holder: z.string().optional() });
const count = z.number().int().min(0);

/** the zod schema of the route each fixture stands in for, where one exists */
const SCHEMAS: Record<string, z.ZodType> = {
  "catalogue.list": z.array(storedDatasetSchema),
  "catalogue.get": storedDatasetSchema.nullable(),
  "graphQueries.graph": graphAnswer,
  "graphQueries.expand": graphAnswer,
  "graphQueries.node": nodeAnswer,
  "graphQueries.validate": validationAnswer,
  "graph.countNodes": count,
  "graph.countWhere": count,
  "graph.getNode": graphNodeAnswer.nullable(),
  "graph.relationships": z.array(relationshipAnswer),
  "graph.findNodes": z.array(graphNodeAnswer),
  "graph.sampleGraph": graphAnswer,
  "graph.expand": graphAnswer.nullable(),
  "patients.list": z.array(patient),
  "patients.profile": profile,
  "patients.insights": insights,
  "patients.research": z.array(programme),
  "federated.withheldCounts": z.array(z.string()),
};

const fixtures = readAllFixtures(DEFAULT_FIXTURES_DIR);
const entryOf = (service: string, method: string): MethodEntry | undefined =>
  (REGISTRY as Record<string, { methods: Record<string, MethodEntry | undefined> } | undefined>)[service]
    ?.methods[method];

describe("static fixtures", () => {
  it("exist for the capabilities views use", () => {
    const names = fixtures.map((f) => `${f.service}.${f.method}`);
    for (const n of [
      "catalogue.list",
      "catalogue.get",
      "graphQueries.graph",
      "graphQueries.node",
      "patients.profile",
      "patients.list",
    ]) {
      expect(names).toContain(n);
    }
  });

  it("belong to read methods of the registry", () => {
    const stray = fixtures
      .filter((f) => entryOf(f.service, f.method)?.kind !== "read")
      .map((f) => `${f.service}/${f.method}.json`);
    expect(stray).toEqual([]);
  });

  it.each(
    fixtures
      .filter((f) => SCHEMAS[`${f.service}.${f.method}`])
      .map((f) => [`${f.service}/${f.method}.json`, f] as const),
  )("%s parses against the route's schema", (_name, file) => {
    const schema = SCHEMAS[`${file.service}.${file.method}`];
    const problems: string[] = [];
    for (const call of file.calls) {
      if (call.error) continue;
      const r = schema.safeParse(call.result);
      if (!r.success) {
        const i = r.error.issues[0];
        problems.push(
          `${file.service}.${file.method}(${JSON.stringify(call.args)}): ${i.path.join(".")}: ${i.message}`,
        );
      }
    }
    expect(problems).toEqual([]);
  });
});
