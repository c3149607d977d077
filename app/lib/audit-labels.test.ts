import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { MACHINES } from "../../server/access-body/machines";
import { clockEventSchema } from "../../server/access-body/model";
import { AUDIT_ACTIONS, auditActionLabel } from "../components/ui/audit-labels";
import { timesWithZone } from "../components/ui/format";
import { looksRaw } from "../../tests/support/looks-raw";

/**
 * Issue 40, names not ids: the audit trail (/audit) names every action in words. The actions are
 * read from the code that writes them, so an action added without an entry in the label catalogue
 * (app/components/ui/audit-labels.ts AUDIT_ACTIONS) fails here, and so does an entry no code writes.
 */

const ROOT = path.resolve(__dirname, "../..");

/** the production sources of server/ and app/ (no tests, no test support) */
function sources(dir: string): { file: string; text: string }[] {
  return readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter(
      (d) =>
        d.isFile() && /\.tsx?$/.test(d.name) && !/\.test\.tsx?$/.test(d.name) && !/test-support/.test(d.name),
    )
    .map((d) => {
      const file = path.join(d.parentPath, d.name);
      return { file: path.relative(ROOT, file), text: readFileSync(file, "utf8") };
    });
}

// the label catalogue's own keys are not actions the code writes
const CATALOGUE = path.join("app", "components", "ui", "audit-labels.ts");
const ALL = [...sources("server"), ...sources("app")].filter((s) => s.file !== CATALOGUE);
const matches = (re: RegExp) => ALL.flatMap((s) => [...s.text.matchAll(re)].map((m) => ({ ...s, m })));

/** actions written as literals: an audit input's `action`, the policy registry's `record(action, …)`, a constant */
function literalActions(): string[] {
  return [
    ...matches(/\baction: "([a-zA-Z][\w-]*(?:\.[\w-]+)+)"/g),
    ...matches(/\brecord\(\s*"([a-zA-Z][\w-]*(?:\.[\w-]+)+)"/g),
    ...matches(/_ACTION = "([a-zA-Z][\w-]*(?:\.[\w-]+)+)"/g),
    // the audited reads of a record (server/patient/service.ts RecordRead, the list's two), handed to the access log
    ...matches(/"([a-zA-Z][\w-]*(?:\.[\w-]+)*\.read)"/g),
  ].map((x) => x.m[1]!);
}

/** the record a new access-body record of each kind is written with (store.ts `create`: `<kind>.<event>`) */
const CREATED: Record<string, string> = {
  application: "submit",
  dataRequest: "submit",
  permit: "issue",
  informationRequest: "open",
  finding: "open",
  result: "declare",
};

/** the access body's `<record kind>.<event>` and `<record kind>.seed` (server/access-body/store.ts) */
function accessBodyActions(): string[] {
  const kinds = Object.keys(MACHINES).filter((k) => k !== "clock");
  return [
    ...kinds.flatMap((k) => [
      ...Object.keys(MACHINES[k as keyof typeof MACHINES].events).map((e) => `${k}.${e}`),
      `${k}.${CREATED[k]}`,
      `${k}.seed`,
    ]),
    // a clock event is the application's own history entry: `clock.<event>` (applications.ts clockEvent)
    ...clockEventSchema.shape.event.options.map((e) => `application.clock.${e}`),
  ];
}

/** a cut-off's `<kind>.terminate` of a negotiation or a transfer process (server/dataspace/cut-off.ts `terminate`) */
const cutOffActions = () => ["negotiation", "transfer"].map((kind) => `${kind}.terminate`);

const written = () => [...new Set([...literalActions(), ...accessBodyActions(), ...cutOffActions()])].sort();

describe("the audit trail's actions in words", () => {
  it("reads the actions from the code: every way an action is made is one this test knows", () => {
    // actions made at run time (dotted, as every audit action is; an ODRL rule's "offer:…" is not one):
    // the access body's two, which accessBodyActions() spells out, and the cut-off's (cutOffActions())
    const templates = matches(/\baction: `([^`]*)`/g)
      .filter((x) => x.m[1]!.replace(/\$\{[^}]*\}/g, "").includes("."))
      .map((x) => `${x.file}: ${x.m[1]}`);
    expect(templates.sort()).toEqual([
      "server/access-body/store.ts: ${rec.kind}.${change.event}",
      "server/access-body/store.ts: ${rec.kind}.seed",
      "server/dataspace/cut-off.ts: ${kind}.terminate",
    ]);
    // an access-body event fired in the code is a machine's event or one that creates a record
    const machineEvents = new Set([
      ...Object.values(MACHINES).flatMap((m) => Object.keys(m.events)),
      ...Object.values(CREATED),
    ]);
    const events = matches(/\bevent: "(\w+)"/g)
      .filter((x) => x.file.startsWith(path.join("server", "access-body")))
      .map((x) => x.m[1]!);
    expect(events.length).toBeGreaterThan(5);
    expect(events.filter((e) => !machineEvents.has(e))).toEqual([]);
    // the reading finds the actions it should (a broken pattern finds none)
    expect(written()).toEqual(
      expect.arrayContaining([
        "transfer.start",
        "policy.update",
        "patient.profile.read",
        "patient.list.page.read",
        "request.refused",
        "dataRequest.seed",
        "application.clock.extend",
        "audit.retention.set",
      ]),
    );
  });

  it("names every action the code writes, in words", () => {
    const unnamed = written().filter((a) => !(a in AUDIT_ACTIONS));
    expect(unnamed, "actions the code writes without an entry in AUDIT_ACTIONS").toEqual([]);
    for (const a of written())
      expect(looksRaw(auditActionLabel(a)), `${a}: ${auditActionLabel(a)}`).toBe(false);
  });

  it("has one entry per action, and none for an action no code writes", () => {
    const stale = Object.keys(AUDIT_ACTIONS).filter((a) => !written().includes(a));
    expect(stale, "entries of AUDIT_ACTIONS no code writes").toEqual([]);
    // one spelling: no two actions read the same
    const labels = Object.values(AUDIT_ACTIONS);
    expect(labels.filter((l, i) => labels.indexOf(l) !== i)).toEqual([]);
  });

  it("turns an action it does not know into words, never the code", () => {
    expect(auditActionLabel("dataRequest.seed")).toBe("Demonstration data request recorded");
    expect(auditActionLabel("someNew.thingDone")).toBe("Some new thing done");
    expect(looksRaw(auditActionLabel("someNew.thingDone"))).toBe(false);
  });

  it("gives the times inside an outcome with their zone (a coalesced entry's 'since …')", () => {
    const text = timesWithZone("refused (401), 1 more time since 2026-11-30T03:27:52.933Z");
    expect(text).toMatch(/^refused \(401\), 1 more time since 30 Nov 2026, 03:27 UTC$/);
    expect(text).not.toMatch(/\d{4}-\d\d-\d\dT/);
    expect(timesWithZone("success")).toBe("success");
  });
});
