import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findPersona } from "../../server/auth/personas";
import { startTestServer, type TestServer } from "../support/server";
import { sendJson, signIn, type Signed } from "../support/signin";
import { grantedPermit, researcherNegotiates, researcherPulls } from "../support/permits-granted";
import { until } from "../support/until";

/**
 * Data about persons leaves only in the form its asset and its permit describe (DESIGN, "Principles"):
 * the whole server with its embedded dataspace, access body and synthetic population; the holder offers
 * its own datasets, a data user applies through the access body's routes and pulls as the researcher.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are arbitrary JSON, checked by the assertions
type Json = any;

let server: TestServer;
const as = new Map<string, Signed>();
const ALPHA = "alphaklinik-berlin";

const send = (who: string, path: string, body?: unknown) => sendJson(as.get(who)!, path, body);

/** the clinic offers `datasets` as an asset of its own with `disclosure`, under its seeded contract policy */
const offer = async (assetId: string, datasets: string[], disclosure: "aggregate" | "pseudonymised") => {
  const asset = await send("clinic", "/api/assets", {
    participantId: ALPHA,
    assetId,
    name: assetId,
    datasets,
    disclosure,
    policyId: "policy-secondary-use",
  });
  expect(asset.status, assetId).toBe(201);
};

/** a data permit for `datasets` granted to the researcher through the access body, in the data form asked for */
const permitFor = (datasets: string[], pseudonymised: boolean): Promise<string> =>
  grantedPermit(as.get("researcher")!, as.get("regulator")!, {
    title: `Outcomes in ${datasets.join(", ")}`,
    summary: "Outcomes of outpatients in the clinic's records, for a study with a published protocol.",
    purpose: "scientificResearch",
    datasets,
    pseudonymised,
  });

const negotiate = (assetId: string) => researcherNegotiates(server, as.get("researcher")!, assetId);
const pull = (assetId: string) => researcherPulls(server, as.get("researcher")!, assetId);

beforeAll(async () => {
  server = await startTestServer();
  for (const u of ["researcher", "regulator", "clinic", "patient1"]) as.set(u, await signIn(server.url, u));
}, 120_000);
afterAll(async () => server?.close());

describe("a pseudonymised asset's records", () => {
  /**
   * server/privacy/policy.ts lists who entered a measurement, the app account, the device's name and
   * free-text notes as direct identifiers: a patient adds a self-measured observation with a note and a
   * device name, the holder offers its EHR dataset as pseudonymised records, a data user with a permit
   * for them pulls: the observation arrives, none of those fields with it.
   */
  it("carry no note, device name, app account or user name the patient entered", async () => {
    const EHR = "dataset-alphaklinik-ehr";
    const NOTE = "Maria Schneider, Berlin, call +49 30 1234 5678";
    const DEVICE = "Maria Schneider's phone";
    const patient = findPersona("patient1")!.patientId!;
    const added = await send("patient1", "/api/patient/app/record", {
      resourceType: "Observation",
      status: "final",
      code: { coding: [{ system: "http://loinc.org", code: "8310-5" }] },
      effectiveDateTime: new Date(Date.now() - 3600_000).toISOString(),
      valueQuantity: { value: 37.3, system: "http://unitsofmeasure.org", code: "Cel" },
      device: { display: DEVICE },
      note: [{ text: NOTE }],
    });
    expect(added.status).toBe(201);
    // the patient is among the records the asset draws from (its holder's first ten of the dataset)
    const included = await server.services.graph.relationships({
      id: EHR,
      types: ["INCLUDES"],
      direction: "out",
      limit: 10,
    });
    expect(included.map((r) => r.node.id)).toContain(patient);

    await offer("ehr-records", [EHR], "pseudonymised");
    await permitFor([EHR], true);
    const got = await pull("ehr-records");

    const resources: Json[] = got.data.entry.map((e: Json) => e.resource);
    const self = resources.filter((r) => r.resourceType === "Observation" && r.selfMeasured === true);
    // the measurement itself is delivered, as the asset describes (pseudonymised records)
    expect(self.map((r) => r.value)).toContain(37.3);
    const text = JSON.stringify(got.data);
    for (const mark of [NOTE, DEVICE, "patient1", patient]) expect(text.includes(mark), mark).toBe(false);
    for (const key of ["note", "deviceName", "enteredBy", "appAccountId"])
      expect(
        resources.filter((r) => key in r).map((r) => r.resourceType),
        key,
      ).toEqual([]);
    // a patient's birth date leaves as its year only
    for (const r of resources.filter((x) => x.resourceType === "Patient"))
      expect(String(r.birthDate)).toMatch(/^\d{4}$/);
  }, 120_000);
});

describe("a data permit for anonymised data", () => {
  /**
   * An application states the data form it needs (`pseudonymised`, default false: anonymised; the view's
   * "Data form"), and the permit granted on it carries that form. Under a permit for anonymised data an
   * aggregate asset is negotiated and pulled; a pseudonymised asset's records are not: 403, nothing started.
   */
  it("gives an aggregate asset's counts, and refuses a contract for pseudonymised records (403, nothing started)", async () => {
    const MH = "dataset-alphaklinik-mental-health";
    await offer("mh-records", [MH], "pseudonymised");
    await offer("mh-counts", [MH], "aggregate");
    const anonymised = await permitFor([MH], false);

    const listed = async () =>
      ((await send("researcher", "/api/negotiations?participantId=pharmaco")).body as Json[]).length;
    const before = await listed();
    const refused = await negotiate("mh-records");
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe(
      `The data permit ${anonymised} names PharmaCo Research AG and the dataset of mh-records for anonymised data only: mh-records delivers pseudonymised records`,
    );
    expect(refused.body.permitRequired).toMatchObject({
      organisation: "PharmaCo Research AG",
      assetId: "mh-records",
      pseudonymised: true,
    });
    expect(await listed()).toBe(before);

    const counts = await pull("mh-counts");
    expect(counts.permitId).toBe(anonymised);
    expect(counts.data.resourceType).toBe("MeasureReport");
    expect(JSON.stringify(counts.data)).not.toMatch(/"entry"/);

    // a permit for pseudonymised data of the dataset is the one a contract for the records rests on,
    // also when a later permit for anonymised data names the dataset too
    const pseudonymised = await permitFor([MH], true);
    await permitFor([MH], false);
    const started = await negotiate("mh-records");
    expect(started.status).toBe(201);
    const n = await until(
      async () =>
        (await send("researcher", `/api/negotiations/${started.body["@id"]}?participantId=pharmaco`)).body,
      (x: Json) => x.state === "FINALIZED" || x.state === "TERMINATED",
    );
    expect(n.permitId).toBe(pseudonymised);

    // a contract resting on a permit for anonymised data (as one made before negotiations checked the form
    // could): no transfer starts under it, a started one pulls nothing, and each refusal is on record
    const transfer = {
      participantId: "pharmaco",
      contractId: n.contractAgreementId,
      counterPartyAddress: n.counterPartyAddress,
      assetId: "mh-records",
    };
    const t = await send("researcher", "/api/transfers", transfer);
    expect(t.status).toBe(201);
    await until(
      async () => (await send("researcher", `/api/transfers/${t.body["@id"]}?participantId=pharmaco`)).body,
      (x: Json) => x.state === "STARTED" || x.state === "TERMINATED",
    );
    // the provider's data plane asks the graph bridge with the asset's code and the agreement (Tractus-X's header)
    const asset = await server.services.dataspace.runtime.connector.getAsset(ALPHA, "mh-records");
    const address = asset.dataAddress as Json;
    const bridge = () =>
      fetch(`${server.url}/internal/graph-bridge/assets/${ALPHA}/mh-records`, {
        headers: { [address.authKey]: address.authCode, "Edc-Contract-Agreement-Id": n.contractAgreementId },
      });
    expect((await bridge()).status).toBe(200);
    const store = server.services.accessBody.store;
    const permit = (await store.get<{ pseudonymised: boolean }>(pseudonymised))!;
    await store.tx((w) =>
      w.update(
        { ...permit, data: { ...permit.data, pseudonymised: false } },
        {
          event: "test",
          fromState: permit.state,
          actor: { username: "test", role: "system" },
          at: new Date(),
        },
      ),
    );
    const refusal = `Data permit ${pseudonymised} is for anonymised data only: no pseudonymised records leave under it`;
    const again = await send("researcher", "/api/transfers", transfer);
    expect(again.status).toBe(403);
    expect(again.body.error).toBe(refusal);
    const pulled = await server.services.dataspace
      .pullTransferData("pharmaco", t.body["@id"], "researcher")
      .catch((e: unknown) => e);
    expect(pulled).toMatchObject({ status: 403, message: refusal });
    expect((await bridge()).status).toBe(403);
    const entries = await server.services.audit.list({ limit: 200 });
    expect(
      entries.filter((e) => e.action === "transfer.start" && e.outcome === "failure").length,
    ).toBeGreaterThan(0);
    expect(
      entries.some(
        (e) => e.action === "transfer.pull" && e.outcome === "refused: permit for anonymised data only",
      ),
    ).toBe(true);
  }, 120_000);
});
