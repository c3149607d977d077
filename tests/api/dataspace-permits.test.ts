import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findPersona } from "../../server/auth/personas";
import { DSP_PROTOCOL, MANAGEMENT_CONTEXT } from "../../server/dataspace-protocol";
import { pseudonymFor } from "../../server/dataspace/release";
import { linked } from "../../server/graph";
import { startTestServer, type TestServer } from "../support/server";
import { sendJson, signIn, type Signed } from "../support/signin";
import { grantedPermit } from "../support/permits-granted";
import { until } from "../support/until";

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
const DIABETES = "dataset-alphaklinik-diabetes";
/** the seeded assets, with the datasets of theirs the permit below names (the cohort a pull is drawn from) */
const ASSETS = [
  { assetId: "fhir-cohort-bundle", provider: "alphaklinik-berlin", did: ALPHA_DID, cohort: [DIABETES] },
  // drawn from the diabetes and the EHR dataset, of which the permit names the first only
  { assetId: "omop-cohort-statistics", provider: "alphaklinik-berlin", did: ALPHA_DID, cohort: [DIABETES] },
  { assetId: "fhir-patient-everything", provider: "lmc", did: LMC_DID, cohort: ["dataset-lmc-ehr"] },
];

/** the first ten patients (at most) the datasets include in the graph: what a pull of them delivers */
const patientsIn = async (datasets: string[]) => {
  const found = new Map<string, { resourceId: string; holder: unknown }>();
  for (const d of datasets)
    for (const p of await linked(server.services.graph, d, "INCLUDES", "out"))
      found.set(p.id, { resourceId: String(p.properties.resourceId), holder: p.properties.holder });
  return [...found.values()].slice(0, 10);
};

const send = (who: string, path: string, body?: unknown) => sendJson(as.get(who)!, path, body);

const contractRequest = async (a: { assetId: string; provider: string; did: string }) => {
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
      ["researcher", "regulator", "clinic", "admin"].map(
        async (u) => [u, await signIn(server.url, u)] as const,
      ),
    ),
  );
});
afterAll(async () => server?.close());

/** a push destination on 127.0.0.1: what it received, body by body */
const received: Json[] = [];
const sink = createServer((req, res) => {
  let body = "";
  req.on("data", (c: Buffer) => (body += c.toString()));
  req.on("end", () => {
    received.push(JSON.parse(body));
    res.writeHead(200).end();
  });
});
beforeAll(() => new Promise<void>((r) => sink.listen(0, "127.0.0.1", r)));
afterAll(() => new Promise((r) => sink.close(r)));

/** an HttpData-PUSH of the agreement's data to the sink, started at the consumer's connector (past the hub) */
const pushed = async (contractId: string, counterPartyAddress: string) => {
  const connector = server.services.dataspace.runtime.connector;
  const { "@id": id } = await connector.initiateTransfer("pharmaco", {
    "@context": [MANAGEMENT_CONTEXT],
    "@type": "TransferRequest",
    protocol: DSP_PROTOCOL,
    counterPartyAddress,
    contractId,
    transferType: "HttpData-PUSH",
    dataDestination: {
      "@type": "DataAddress",
      type: "HttpData",
      baseUrl: `http://127.0.0.1:${(sink.address() as AddressInfo).port}/in`,
    },
  });
  return until(
    () => connector.getTransfer("pharmaco", id),
    (t) => t.state === "COMPLETED" || t.state === "TERMINATED",
  );
};

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
    permitId = await grantedPermit(as.get("researcher")!, as.get("regulator")!, {
      title: "Diabetes outcomes across two holders",
      summary: "Outcomes of type 2 diabetes in two hospitals, on pseudonymised records and aggregate counts.",
      purpose: "scientificResearch",
      datasets: ["dataset-alphaklinik-diabetes", "dataset-lmc-ehr"],
      pseudonymised: true,
    });

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
      const got: Json = await server.services.dataspace.pullTransferData(
        "pharmaco",
        t.body["@id"],
        "researcher",
      );
      pulled.push({ assetId: a.assetId, transferId: t.body["@id"] });
      expect(got.permitId).toBe(permitId);
      // what left under the permit is on record, naming it
      expect((await server.services.audit.list({ limit: 10_000 })).map(entryOf)).toContainEqual({
        action: "transfer.pull",
        actor: "researcher",
        target: expect.stringMatching(new RegExp(`^pharmaco: ${t.body["@id"]} \\(data permit ${permitId}, `)),
        outcome: "success",
      });
      const text = JSON.stringify(got.data);
      expect(text, a.assetId).not.toMatch(/patient-\d{6}/);
      expect(text).not.toContain(patient);
      expect(text).not.toMatch(/"(name|givenName|familyName|city)":/);
      if (a.assetId === "omop-cohort-statistics") {
        expect(got.data.resourceType).toBe("MeasureReport");
        expect(text).not.toMatch(/"entry"/);
        // counted over the permit's cohort only: the diabetes patients (few: suppressed below k)
        const n = (await patientsIn(a.cohort)).length;
        expect(got.data.patients.count).toBe(n >= got.data.k || n === 0 ? n : null);
        const counts: (number | null)[] = [
          got.data.patients.count,
          ...got.data.groups.flatMap((g: Json) => [g.total.count, ...g.byCode.map((c: Json) => c.count)]),
        ];
        for (const c of counts) if (c !== null && c !== 0) expect(c).toBeGreaterThanOrEqual(got.data.k);
      } else {
        expect(got.data.entry.length).toBeGreaterThan(0);
        for (const e of got.data.entry) expect(e.resource.id).toMatch(/^psn-/);
        // the patients of the permit's cohort in the asset's datasets, the provider's own: no one else
        const expected = await patientsIn(a.cohort);
        for (const p of expected) expect(p.holder).toBe(a.provider);
        const secret = server.services.dataspace.runtime.releaseSecret;
        const patients = got.data.entry.filter((e: Json) => e.resource.resourceType === "Patient");
        expect(patients.map((e: Json) => e.resource.id).sort(), a.assetId).toEqual(
          expected.map((p) => pseudonymFor(secret, permitId, p.resourceId)).sort(),
        );
        if (a.assetId === "fhir-cohort-bundle") {
          // each of them has type 2 diabetes, and the catalogue counts as many as were delivered
          const owners = (keep: (r: Json) => boolean) =>
            new Set(
              got.data.entry
                .map((e: Json) => e.resource)
                .filter(keep)
                .map((r: Json) => r.patientId),
            );
          const diabetic = owners((r) => r.resourceType === "Condition" && r.code === "44054006");
          expect(diabetic.size).toBe(patients.length);
          expect(owners((r) => r.resourceType !== "Patient")).toEqual(diabetic);
          // as its holder reads it (a data user is not shown a count that would pin a suppressed cell: 0093)
          const catalogue = await send("clinic", "/api/catalog");
          const declared = catalogue.body.find((d: Json) => d.id === DIABETES).recordCount;
          expect(patients.length).toBe(Math.min(declared, 10));
        }
      }
    }
  });

  /** assets a data holder registers with its terms (decision 0065), negotiated under the permit */
  const holderAssets = [
    { assetId: "diabetes-counts", disclosure: "aggregate", agreement: "", address: "", transferId: "" },
    { assetId: "diabetes-records", disclosure: "pseudonymised", agreement: "", address: "", transferId: "" },
  ];
  const ALPHA = "alphaklinik-berlin";
  const bridgeUrl = (assetId: string, holder = ALPHA) =>
    `${server.url}/internal/graph-bridge/assets/${holder}/${assetId}`;
  const bridgeCode = async (assetId: string, holder = ALPHA) => {
    // the code as the connector holds it in the asset's data address (what a provider data plane sends)
    const asset = await server.services.dataspace.runtime.connector.getAsset(holder, assetId);
    const address = asset.dataAddress as Json;
    return { key: address.authKey as string, code: address.authCode as string };
  };

  it("an asset's terms are metadata of the asset at the connector, from the holder's request (validated, default the most restrictive)", async () => {
    const bad = await send("clinic", "/api/assets", {
      participantId: ALPHA,
      assetId: "bad-terms",
      name: "Bad",
      disclosure: "identified",
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe("disclosure must be one of aggregate, pseudonymised");
    const badSets = await send("clinic", "/api/assets", {
      participantId: ALPHA,
      assetId: "bad-terms",
      name: "Bad",
      datasets: "dataset-alphaklinik-diabetes",
    });
    expect(badSets.status).toBe(400);
    const plain = await send("clinic", "/api/assets", {
      participantId: ALPHA,
      assetId: "plain-asset",
      name: "Plain",
    });
    expect(plain.status).toBe(201);
    for (const a of holderAssets) {
      const res = await send("clinic", "/api/assets", {
        participantId: ALPHA,
        assetId: a.assetId,
        name: a.assetId,
        datasets: ["dataset-alphaklinik-diabetes"],
        disclosure: a.disclosure,
        policyId: "policy-secondary-use",
      });
      expect(res.status, a.assetId).toBe(201);
    }
    const NS = "https://w3id.org/health-dataspace-hub/v0.0.1/ns/";
    const listed = await send("clinic", `/api/assets?participantId=${ALPHA}`);
    const byId = (id: string) => listed.body.find((x: Json) => x["@id"] === id);
    expect(byId("plain-asset").properties[`${NS}disclosure`]).toBe("aggregate");
    expect(byId("diabetes-records").properties[`${NS}disclosure`]).toBe("pseudonymised");
    expect(byId("diabetes-records").properties[`${NS}datasets`]).toEqual(["dataset-alphaklinik-diabetes"]);
    expect(listed.body.some((x: Json) => x["@id"] === "bad-terms")).toBe(false);
    // the data address points at the graph bridge; its code is never shown in a list
    expect(byId("diabetes-records").dataAddress).toMatchObject({
      baseUrl: bridgeUrl("diabetes-records"),
      authKey: "X-Graph-Bridge-Key",
    });
    expect(JSON.stringify(listed.body)).not.toContain("authCode");
    expect((await bridgeCode("diabetes-records")).code).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("a contract and a pull read the terms from the asset: the permit's dataset, and what the asset discloses", async () => {
    for (const a of holderAssets) {
      const started = await send(
        "researcher",
        "/api/negotiations",
        await contractRequest({ assetId: a.assetId, provider: ALPHA, did: ALPHA_DID }),
      );
      expect(started.status, a.assetId).toBe(201);
      const n = await until(
        async () =>
          (await send("researcher", `/api/negotiations/${started.body["@id"]}?participantId=pharmaco`)).body,
        (x: Json) => x.state === "FINALIZED" || x.state === "TERMINATED",
      );
      expect(n.state, a.assetId).toBe("FINALIZED");
      a.agreement = n.contractAgreementId;
      a.address = n.counterPartyAddress;
      const t = await send("researcher", "/api/transfers", {
        participantId: "pharmaco",
        contractId: n.contractAgreementId,
        counterPartyAddress: n.counterPartyAddress,
        assetId: a.assetId,
      });
      expect(t.status).toBe(201);
      a.transferId = t.body["@id"];
      await until(
        async () => (await send("researcher", `/api/transfers/${a.transferId}?participantId=pharmaco`)).body,
        (x: Json) => x.state === "STARTED" || x.state === "TERMINATED",
      );
      const got: Json = await server.services.dataspace.pullTransferData("pharmaco", a.transferId);
      if (a.disclosure === "aggregate") expect(got.data.resourceType, a.assetId).toBe("MeasureReport");
      else expect(got.data.entry[0].resource.id, a.assetId).toMatch(/^psn-/);
    }
  });

  it("the graph bridge serves an asset's data only with its address's code, released as the terms and permit allow; refusals audited", async () => {
    const patient = findPersona("patient1")!.patientId!;
    const counts = await bridgeCode("diabetes-counts");
    const records = await bridgeCode("diabetes-records");
    const get = async (assetId: string, headers: Record<string, string> = {}, method = "GET") => {
      const res = await fetch(bridgeUrl(assetId), { method, headers });
      return {
        status: res.status,
        body: (await res.json()) as Json,
        cache: res.headers.get("cache-control"),
      };
    };
    const refusedBefore = (await server.services.audit.list({ limit: 10_000 })).filter(
      (e) => e.action === "graph-bridge.read" && e.outcome === "failure",
    ).length;

    const none = await get("diabetes-counts");
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ error: "The graph bridge needs the code of this asset's data address" });
    // one asset's code opens no other asset
    expect((await get("diabetes-counts", { [records.key]: records.code })).status).toBe(401);
    // a code one character off (not "A" when it ends in "A": one code in 16 does, and it was then the same code)
    const offByOne = `${counts.code.slice(0, -1)}${counts.code.endsWith("A") ? "E" : "A"}`;
    expect((await get("diabetes-counts", { [counts.key]: offByOne })).status).toBe(401);
    expect((await get("diabetes-counts", { [counts.key]: counts.code }, "POST")).status).toBe(405);
    // a caller's text in the path never reaches the audit log, and a flood of refusals is counted
    const planted = encodeURIComponent(`${ALPHA}: patient-000001 (exported by clinic)`);
    for (let i = 0; i < 20; i++) expect((await fetch(bridgeUrl("x", planted))).status).toBe(401);

    const aggregate = await get("diabetes-counts", { [counts.key]: counts.code });
    expect(aggregate.status).toBe(200);
    expect(aggregate.cache).toBe("no-store");
    expect(aggregate.body.resourceType).toBe("MeasureReport");
    expect(JSON.stringify(aggregate.body)).not.toMatch(/patient-\d{6}|"entry"/);

    // records: only for an agreement that rests on a valid permit, pseudonymised under that permit
    const noAgreement = await get("diabetes-records", { [records.key]: records.code });
    expect(noAgreement.status).toBe(403);
    const otherAgreement = await get("diabetes-records", {
      [records.key]: records.code,
      "Edc-Contract-Agreement-Id": "agreement-never-made",
    });
    expect(otherAgreement.status).toBe(403);
    const agreement = holderAssets[1].agreement;
    const released = await get("diabetes-records", {
      [records.key]: records.code,
      "Edc-Contract-Agreement-Id": agreement,
    });
    expect(released.status).toBe(200);
    const text = JSON.stringify(released.body);
    expect(text).not.toMatch(/patient-\d{6}/);
    expect(text).not.toContain(patient);
    expect(text).not.toMatch(/"(name|givenName|familyName|city)":/);
    expect(released.body.meta.tag[0].code).toBe(permitId);
    for (const e of released.body.entry) expect(e.resource.id).toMatch(/^psn-/);
    // what the hub's pull hands on under the same permit (a real data plane's pull of this answer too)
    const pulled: Json = await server.services.dataspace.pullTransferData(
      "pharmaco",
      holderAssets[1].transferId,
    );
    expect(released.body).toEqual(pulled.data);

    const entries = await server.services.audit.list({ limit: 10_000 });
    const refused = entries.filter((e) => e.action === "graph-bridge.read" && e.outcome === "failure");
    // the two refused for want of a permit; those without a code are refused requests, one entry a
    // minute for each method and status however many came, their target the bridge's path
    expect(refused.length - refusedBefore).toBe(2);
    const anonymous = entries.filter(
      (e) => e.action === "request.refused" && e.target.endsWith(" /internal/graph-bridge/assets"),
    );
    expect(anonymous.map((e) => `${e.target} ${e.outcome}`).sort()).toEqual([
      "GET /internal/graph-bridge/assets refused (401)",
      "POST /internal/graph-bridge/assets refused (405)",
    ]);
    expect(JSON.stringify(entries)).not.toContain("exported by clinic");
    expect(
      entries.some(
        (e) =>
          e.action === "graph-bridge.read" &&
          e.outcome === "success" &&
          e.target.includes(`diabetes-records (pseudonymised under ${permitId}`),
      ),
    ).toBe(true);
  });

  it("a push through the embedded connector delivers what the graph bridge releases, as the hub's pull: the permit's pseudonyms, no one's identifier or name", async () => {
    const patient = findPersona("patient1")!.patientId!;
    const secret = server.services.dataspace.runtime.releaseSecret;
    for (const a of holderAssets) {
      const before = received.length;
      const t = await pushed(a.agreement, a.address);
      expect(t.state, String(t.errorDetail)).toBe("COMPLETED");
      expect(received.length).toBe(before + 1);
      const data = received[before];
      const text = JSON.stringify(data);
      expect(text, a.assetId).not.toMatch(/patient-\d{6}/);
      expect(text).not.toContain(patient);
      expect(text).not.toMatch(/"(name|givenName|familyName|city)":/);
      const pulled: Json = await server.services.dataspace.pullTransferData("pharmaco", a.transferId);
      expect(data, a.assetId).toEqual(pulled.data);
      // the embedded data plane's own answer to the pull's EDR is released already
      const edr = await server.services.dataspace.runtime.connector.getEndpointDataReference(
        "pharmaco",
        a.transferId,
      );
      const plane = await fetch(edr.endpoint, { headers: { Authorization: edr.authorization } });
      expect(await plane.json()).toEqual(data);
      if (a.disclosure === "aggregate") expect(data.resourceType).toBe("MeasureReport");
      else {
        const patients = data.entry.filter((e: Json) => e.resource.resourceType === "Patient");
        expect(patients.length).toBeGreaterThan(0);
        expect(patients.map((e: Json) => e.resource.id).sort()).toEqual(
          (await patientsIn([DIABETES])).map((p) => pseudonymFor(secret, permitId, p.resourceId)).sort(),
        );
      }
    }
  });

  it("an asset is drawn only from datasets its participant holds: another organisation's, or one the catalogue lacks, is refused (400, nothing written)", async () => {
    for (const [extra, notHeld] of [
      [
        { assetId: "uti-probe", datasets: ["dataset-lmc-urinary-infections"], disclosure: "pseudonymised" },
        "dataset-lmc-urinary-infections is not",
      ],
      [{ assetId: "nowhere-probe", datasets: [DIABETES, "dataset-nowhere"] }, "dataset-nowhere is not"],
      // an asset naming none is drawn from the dataset of its name: another organisation's is refused too
      [{ assetId: "asset-lmc-urinary-infections" }, "dataset-lmc-urinary-infections is not"],
    ] as const) {
      const res = await send("clinic", "/api/assets", { participantId: ALPHA, name: "Probe", ...extra });
      expect([extra.assetId, res.status, res.body]).toEqual([
        extra.assetId,
        400,
        { error: `datasets must be catalogue datasets that ${ALPHA} holds: ${notHeld}` },
      ]);
    }
    const listed = await send("clinic", `/api/assets?participantId=${ALPHA}`);
    expect(listed.body.filter((x: Json) => /probe|asset-lmc/.test(x["@id"]))).toEqual([]);
    const entries = await server.services.audit.list({ limit: 10_000 });
    expect(entries.filter((e) => e.action === "asset.create" && /probe|asset-lmc/.test(e.target))).toEqual(
      [],
    );
  });

  it("the records behind an asset come only from its datasets, of its holder's own records: none else, no fallback to another holder", async () => {
    // PharmaCo holds no dataset: an asset of its context (registered by the operator; of the dataset of its
    // name, which the catalogue lacks) counts nobody, and AlphaKlinik's of no catalogue dataset nobody either
    const own = await send("admin", "/api/assets", {
      participantId: "pharmaco",
      assetId: "pharmaco-counts",
      name: "Counts",
    });
    expect(own.status).toBe(201);
    for (const [holder, assetId] of [
      ["pharmaco", "pharmaco-counts"],
      [ALPHA, "plain-asset"],
    ]) {
      const { key, code } = await bridgeCode(assetId, holder);
      const res = await fetch(bridgeUrl(assetId, holder), { headers: { [key]: code } });
      expect(res.status).toBe(200);
      const counts = (await res.json()) as Json;
      expect([assetId, counts.patients.count, counts.groups]).toEqual([assetId, 0, []]);
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
    // the contract is found by its agreement, whatever asset the request names (none, or another)
    for (const assetId of [open!.assetId, "", "another-asset"]) {
      const again = await send("researcher", "/api/transfers", {
        participantId: "pharmaco",
        contractId: open!.contractId,
        counterPartyAddress: open!.address,
        assetId,
      });
      expect(again.status, assetId).toBe(403);
      expect(again.body.error).toBe(`Data permit ${permitId} is REVOKED: no further data leaves under it`);
    }
    // the graph bridge releases no more records under the revoked permit
    const records = await bridgeCode("diabetes-records");
    const bridged = await fetch(bridgeUrl("diabetes-records"), {
      headers: { [records.key]: records.code, "Edc-Contract-Agreement-Id": holderAssets[1].agreement },
    });
    expect(bridged.status).toBe(403);
    // nor does the embedded data plane push them: the transfer, started past the hub, is TERMINATED
    const before = received.length;
    const push = await pushed(holderAssets[1].agreement, holderAssets[1].address);
    expect(push).toMatchObject({
      state: "TERMINATED",
      errorDetail: expect.stringMatching(/only for a contract agreement backed by a valid data permit/),
    });
    expect(received.length).toBe(before);
    for (const p of pulled) {
      await expect(
        server.services.dataspace.pullTransferData("pharmaco", p.transferId, "researcher"),
      ).rejects.toMatchObject({
        status: 403,
        message: `Data permit ${permitId} is REVOKED: no further data leaves under it`,
      });
    }
    // each refused pull is on record too
    const refused = (await server.services.audit.list({ limit: 10_000 })).filter(
      (e) => e.action === "transfer.pull" && e.outcome === "refused: permit REVOKED",
    );
    expect(refused.map((e) => e.target.split(" ")[1]).sort()).toEqual(pulled.map((p) => p.transferId).sort());
  });
});

const entryOf = (e: { action: string; actor: string; target: string; outcome: string }) => ({
  action: e.action,
  actor: e.actor,
  target: e.target,
  outcome: e.outcome,
});
