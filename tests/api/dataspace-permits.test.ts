import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findPersona } from "../../server/auth/personas";
import { startTestServer, type TestServer } from "../support/server";
import { signIn, type Signed } from "../support/signin";

/**
 * Issue 34, point 2: data leaves only as its permit allows (EHDS Art. 68). Against the whole server
 * with its embedded dataspace, access body and synthetic population: a contract needs a data permit
 * naming the organisation and the dataset (403 naming the missing permit without one); with a permit
 * granted through the access body's own routes, every demonstration asset is negotiated, transferred
 * and pulled as the data user, and what arrives is checked; revoking the permit stops the next pull.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are arbitrary JSON, checked by the assertions
type Json = any;

let server: TestServer;
let as: Map<string, Signed>;
const ALPHA_DID = "did:web:alpha-klinik.de:participant";
const LMC_DID = "did:web:lmc.nl:participant";
const ASSETS = [
  { assetId: "fhir-cohort-bundle", provider: "alphaklinik-berlin", did: ALPHA_DID },
  { assetId: "omop-cohort-statistics", provider: "alphaklinik-berlin", did: ALPHA_DID },
  { assetId: "fhir-patient-everything", provider: "lmc", did: LMC_DID },
];

const send = async (who: string, path: string, body?: unknown) => {
  const res = await as.get(who)!.api(path, {
    method: body === undefined ? "GET" : "POST",
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Json };
};

async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, ms = 20_000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const v = await read();
    if (done(v) || Date.now() - start > ms) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const contractRequest = async (a: (typeof ASSETS)[number]) => {
  const catalog = await send(
    "researcher",
    `/api/negotiations?participantId=pharmaco&catalog=true&providerDid=${encodeURIComponent(a.did)}`,
  );
  expect(catalog.status).toBe(200);
  const summary = server.services.dataspace.summariseCatalog(catalog.body);
  const dataset = summary.datasets.find((d) => d.id === a.assetId)!;
  return {
    participantId: "pharmaco",
    counterPartyAddress: summary.endpointUrl,
    counterPartyId: a.provider,
    providerDid: a.did,
    offerId: dataset.offers[0].id,
    assetId: a.assetId,
  };
};

beforeAll(async () => {
  server = await startTestServer();
  as = new Map(
    await Promise.all(
      ["researcher", "regulator"].map(async (u) => [u, await signIn(server.url, u)] as const),
    ),
  );
});
afterAll(async () => server?.close());

describe("data leaves only as its permit allows", () => {
  let permitId = "";
  const pulled: { assetId: string; transferId: string }[] = [];
  /** a transfer started under the permit and never pulled: still open when the permit is revoked */
  let open: { contractId: string; address: string; assetId: string; transferId: string } | undefined;

  it("refuses a contract without a data permit naming the organisation and the dataset (403, nothing started)", async () => {
    // PharmaCo holds no seeded permit for LMC's records (its seeded permits name other datasets)
    for (const a of ASSETS.filter((x) => x.provider === "lmc")) {
      const res = await send("researcher", "/api/negotiations", await contractRequest(a));
      expect(res.status, a.assetId).toBe(403);
      expect(res.body.error).toMatch(/No valid data permit .* names PharmaCo Research AG and the dataset of/);
      expect(res.body.permitRequired).toMatchObject({
        organisation: "PharmaCo Research AG",
        assetId: a.assetId,
      });
    }
  });

  it("with a permit granted by the access body: negotiates, transfers and pulls every demonstration asset; nothing identifies a person", async () => {
    const app = await send("researcher", "/api/compliance/applications", {
      title: "Diabetes outcomes across two holders",
      summary: "Outcomes of type 2 diabetes in two hospitals, on pseudonymised records and aggregate counts.",
      purpose: "scientificResearch",
      datasets: ["dataset-alphaklinik-diabetes", "dataset-lmc-ehr"],
      pseudonymised: true,
    });
    expect(app.status).toBe(201);
    const applicationId = app.body.id ?? app.body.application?.id;
    expect(
      (await send("regulator", "/api/compliance/applications/complete", { applicationId, complete: true }))
        .status,
    ).toBe(200);
    const permit = await send("regulator", "/api/compliance/permits", {
      applicationId,
      durationMonths: 12,
      conditions: "Results published within 18 months",
      secureProcessingEnvironment: "MedReg SPE",
    });
    expect(permit.status).toBe(201);
    permitId = permit.body.id;

    const patient = findPersona("patient1")!.patientId!;
    for (const a of ASSETS) {
      const started = await send("researcher", "/api/negotiations", await contractRequest(a));
      expect(started.status, a.assetId).toBe(201);
      const n = await until(
        async () =>
          (await send("researcher", `/api/negotiations/${started.body["@id"]}?participantId=pharmaco`)).body,
        (x: Json) => x.state === "FINALIZED" || x.state === "TERMINATED",
      );
      expect(n.state, a.assetId).toBe("FINALIZED");
      expect(n.permitId).toBe(permitId); // the agreement records the permit
      const t = await send("researcher", "/api/transfers", {
        participantId: "pharmaco",
        contractId: n.contractAgreementId,
        counterPartyAddress: n.counterPartyAddress,
        assetId: a.assetId,
      });
      expect(t.status).toBe(201);
      await until(
        async () => (await send("researcher", `/api/transfers/${t.body["@id"]}?participantId=pharmaco`)).body,
        (x: Json) => x.state === "STARTED" || x.state === "TERMINATED",
      );
      if (!open) {
        const second = await send("researcher", "/api/transfers", {
          participantId: "pharmaco",
          contractId: n.contractAgreementId,
          counterPartyAddress: n.counterPartyAddress,
          assetId: a.assetId,
        });
        expect(second.status).toBe(201);
        open = {
          contractId: n.contractAgreementId,
          address: n.counterPartyAddress,
          assetId: a.assetId,
          transferId: second.body["@id"],
        };
      }
      const got: Json = await server.services.dataspace.pullTransferData("pharmaco", t.body["@id"]);
      pulled.push({ assetId: a.assetId, transferId: t.body["@id"] });
      expect(got.permitId).toBe(permitId);
      const text = JSON.stringify(got.data);
      expect(text, a.assetId).not.toMatch(/patient-\d{6}/);
      expect(text).not.toContain(patient);
      expect(text).not.toMatch(/"(name|givenName|familyName|city)":/);
      if (a.assetId === "omop-cohort-statistics") {
        expect(got.data.resourceType).toBe("MeasureReport");
        expect(text).not.toMatch(/"entry"/);
        const counts: (number | null)[] = [
          got.data.patients.count,
          ...got.data.groups.flatMap((g: Json) => [g.total.count, ...g.byCode.map((c: Json) => c.count)]),
        ];
        for (const c of counts) if (c !== null && c !== 0) expect(c).toBeGreaterThanOrEqual(got.data.k);
      } else {
        expect(got.data.entry.length).toBeGreaterThan(0);
        for (const e of got.data.entry) expect(e.resource.id).toMatch(/^psn-/);
      }
    }
  });

  it("revoking the permit stops the next pull at once", async () => {
    expect(permitId).not.toBe("");
    expect(pulled).toHaveLength(ASSETS.length);
    const revoked = await send("regulator", "/api/compliance/permits/revoke", {
      permitId,
      reason: "Breach of the permit conditions",
    });
    expect(revoked.status).toBe(200);
    // the revocation cut the agreement off at the connector: its open transfer is TERMINATED with the
    // reason (issue 37), and no new transfer starts under it
    const ended = await send("researcher", `/api/transfers/${open!.transferId}?participantId=pharmaco`);
    expect(ended.body).toMatchObject({ state: "TERMINATED", errorDetail: "Breach of the permit conditions" });
    const again = await send("researcher", "/api/transfers", {
      participantId: "pharmaco",
      contractId: open!.contractId,
      counterPartyAddress: open!.address,
      assetId: open!.assetId,
    });
    expect(again.status).toBe(403);
    expect(again.body.error).toBe(`Data permit ${permitId} is REVOKED: no further data leaves under it`);
    for (const p of pulled) {
      await expect(
        server.services.dataspace.pullTransferData("pharmaco", p.transferId),
      ).rejects.toMatchObject({
        status: 403,
        message: `Data permit ${permitId} is REVOKED: no further data leaves under it`,
      });
    }
  });
});
