import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { generateGraph } from "../../server/graph/synthetic/generate";

/**
 * Data minimisation in static mode (issue 11): the fixtures in fixtures/static/ are what the
 * offline demo and the static export show, per persona. A recorded call carries its caller (a
 * session user or a privacy Viewer among its arguments); its result must not carry the identity
 * of a seeded person that caller may not see (README, "What each role sees"). A call that names
 * no caller can reach any persona, so it must carry no identity at all.
 *
 * The seeded people are those of the store the fixtures were recorded from: the deterministic
 * synthetic population of `seedPatients` (views.json) that seeds the embedded store.
 */

/** fixtures/static, or another recording (to check one before it is committed) */
const DIR = path.resolve(process.env.MINIMISATION_FIXTURES_DIR ?? "fixtures/static");

interface Person {
  id: string;
  holder: string;
  marks: string[];
}

function seededPeople(patients: number): Person[] {
  const out: Person[] = [];
  const careDates = new Set<string>();
  const births: { p: Person; birth: string }[] = [];
  for (const batch of generateGraph({ patients, batchSize: 500 })) {
    for (const n of batch.nodes) {
      const s = (k: string) => (typeof n.properties[k] === "string" ? (n.properties[k] as string) : "");
      if (n.label === "Patient") {
        const p = { id: n.id, holder: s("holder"), marks: [s("name"), s("resourceId")].filter(Boolean) };
        out.push(p);
        births.push({ p, birth: s("birthDate") });
      } else if (["Encounter", "Condition", "Observation", "MedicationRequest"].includes(n.label)) {
        for (const v of Object.values(n.properties))
          if (typeof v === "string" && /^\d{4}-\d{2}-\d{2}/.test(v)) careDates.add(v.slice(0, 10));
      }
    }
  }
  // a birth date that is also a day of care somewhere in the data is not distinctive
  for (const { p, birth } of births) if (birth && !careDates.has(birth)) p.marks.push(birth);
  return distinctive(out);
}

/** only marks that single out one person: a name or birth date two people share identifies neither */
function distinctive(people: Person[]): Person[] {
  const count = new Map<string, number>();
  for (const p of people) for (const m of new Set(p.marks)) count.set(m, (count.get(m) ?? 0) + 1);
  return people.map((p) => ({ ...p, marks: p.marks.filter((m) => count.get(m) === 1) }));
}

/** who a recorded call was made for: a persona (session user) or a visibility class (Viewer) */
type Caller = { persona: string } | { viewer: string } | null;

function callerOf(args: unknown): Caller {
  const stack = [args];
  while (stack.length) {
    const v = stack.pop();
    if (!v || typeof v !== "object") continue;
    const o = v as Record<string, unknown>;
    // a session user is recorded as {"$persona": username} (server/static-mode/keys.ts)
    if (typeof o.$persona === "string") return { persona: o.$persona };
    if (typeof o.identities === "string" && typeof o.key === "string") return { viewer: o.key };
    stack.push(...Object.values(o));
  }
  return null;
}

const HOLDER_OF: Record<string, string> = { clinic: "alphaklinik-berlin", lmc: "lmc" };
const PATIENT_OF: Record<string, string> = { patient1: "patient-000001", patient2: "patient-000002" };

function sees(caller: Caller, p: Person): boolean {
  if (!caller) return false;
  if ("persona" in caller) {
    if (caller.persona === "admin") return true;
    return HOLDER_OF[caller.persona] === p.holder || PATIENT_OF[caller.persona] === p.id;
  }
  if (caller.viewer === "all") return true;
  return caller.viewer.split("+").some((part) => part === `held:${p.holder}` || part === `own:${p.id}`);
}

describe("static-mode fixtures", () => {
  it("carry no seeded identity to a persona the role table withholds it from", () => {
    expect(existsSync(path.join(DIR, "views.json"))).toBe(true);
    const { seedPatients } = JSON.parse(readFileSync(path.join(DIR, "views.json"), "utf8")) as {
      seedPatients: number;
    };
    const people = seededPeople(seedPatients);
    expect(people.find((p) => p.id === "patient-000001")?.marks).toContain("Maria Schneider");

    const found: string[] = [];
    let calls = 0;
    for (const service of readdirSync(DIR, { withFileTypes: true })) {
      if (!service.isDirectory()) continue;
      for (const file of readdirSync(path.join(DIR, service.name))) {
        if (!file.endsWith(".json")) continue;
        const book = JSON.parse(readFileSync(path.join(DIR, service.name, file), "utf8")) as {
          calls: { args: unknown[]; result?: unknown }[];
        };
        for (const call of book.calls) {
          calls++;
          const text = JSON.stringify(call.result ?? null);
          const caller = callerOf(call.args);
          for (const p of people) {
            if (sees(caller, p)) continue;
            const hit = p.marks.find((m) => text.includes(m));
            if (hit)
              found.push(
                `${service.name}/${file} ${JSON.stringify(caller)} args ${JSON.stringify(call.args).slice(0, 80)}: ${p.id} ${hit}`,
              );
          }
        }
      }
    }
    expect(calls).toBeGreaterThan(100);
    expect(found.slice(0, 25)).toEqual([]);
  }, 120_000);
});
