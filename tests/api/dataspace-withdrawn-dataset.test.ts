import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NO_PERMIT_REGISTER } from "../../server/dataspace/permits";
import { STORE_BUSY } from "../../server/http/errors";
import { PERMIT_ID, standInPermits } from "../support/permits";
import { grantedPermit } from "../support/permits-granted";
import { startTestServer, type TestServer } from "../support/server";
import { sendJson, signIn, type Signed } from "../support/signin";
import { until } from "../support/until";

/**
 * Decision 0123: a dataset its holder withdraws from the catalogue releases no record, so no new contract rests
 * on it. Through the API: a permit for AlphaKlinik's diabetes dataset, a contract on it, the clinic withdraws the
 * dataset, and the next negotiations are refused before anything reaches the connector; a pull under the contract
 * made before is refused (410) naming the dataset, or, when the agreement covers another still published, releases
 * that one's and names the withdrawn one.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are arbitrary JSON, checked by the assertions
type Json = any;

let server: TestServer;
let as: Map<string, Signed>;
const ALPHA = "alphaklinik-berlin";
const ALPHA_DID = "did:web:alpha-klinik.de:participant";
const DIABETES = "dataset-alphaklinik-diabetes";

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

const send = (who: string, path: string, body?: unknown) => sendJson(as.get(who)!, path, body);

const offered = async (assetId: string) => {
  const catalog = await send(
    "researcher",
    `/api/negotiations?participantId=pharmaco&catalog=true&providerDid=${encodeURIComponent(ALPHA_DID)}`,
  );
  expect(catalog.status).toBe(200);
  const summary = server.services.dataspace.summariseCatalog(catalog.body);
  return {
    address: summary.endpointUrl ?? "",
    offer: summary.datasets.find((d) => d.id === assetId)?.offers[0],
  };
};

const negotiate = async (assetId: string, address: string, offerId: string) => {
  const started = await send("researcher", "/api/negotiations", {
    participantId: "pharmaco",
    counterPartyAddress: address,
    counterPartyId: ALPHA,
    providerDid: ALPHA_DID,
    offerId,
    assetId,
  });
  if (started.status !== 201) return started;
  return {
    status: 201,
    body: await until(
      async () =>
        (await send("researcher", `/api/negotiations/${started.body["@id"]}?participantId=pharmaco`)).body,
      (x: Json) => x.state === "FINALIZED" || x.state === "TERMINATED",
    ),
  };
};

/** a pull transfer under the agreement of a FINALIZED negotiation, once started: its id */
const transferred = async (negotiation: Json, assetId: string): Promise<string> => {
  const t = await send("researcher", "/api/transfers", {
    participantId: "pharmaco",
    contractId: negotiation.contractAgreementId,
    counterPartyAddress: negotiation.counterPartyAddress,
    assetId,
  });
  expect(t.status).toBe(201);
  await until(
    async () => (await send("researcher", `/api/transfers/${t.body["@id"]}?participantId=pharmaco`)).body,
    (x: Json) => x.state === "STARTED" || x.state === "TERMINATED",
  );
  return t.body["@id"];
};
const pull = (transferId: string) =>
  server.services.dataspace.pullTransferData("pharmaco", transferId, "researcher");
const auditOf = async (action: string) =>
  (await send("admin", `/api/admin/audit?action=${action}&limit=1000`)).body as Json[];

describe("a dataset withdrawn from the catalogue is no longer contracted for (decision 0123)", () => {
  it("a new negotiation on an asset drawn from withdrawn datasets is refused before the connector: 404 when none is left, 403 naming those left when the permit names only withdrawn ones", async () => {
    const permitId = await grantedPermit(as.get("researcher")!, as.get("regulator")!, {
      title: "Diabetes registry study",
      summary: "Outcomes of type 2 diabetes at AlphaKlinik, on pseudonymised records.",
      purpose: "scientificResearch",
      datasets: [DIABETES],
      pseudonymised: true,
    });
    // offered and contracted for while the dataset is published
    const bundle = await offered("fhir-cohort-bundle");
    const omop = await offered("omop-cohort-statistics");
    const before = await negotiate("fhir-cohort-bundle", bundle.address, bundle.offer!.id);
    expect([before.status, before.body.state, before.body.permitId]).toEqual([201, "FINALIZED", permitId]);
    const transferBefore = await transferred(before.body, "fhir-cohort-bundle");

    const withdrawn = await as.get("clinic")!.api(`/api/catalog?id=${DIABETES}`, { method: "DELETE" });
    expect(withdrawn.status).toBe(204);
    const negotiationsBefore = (await send("researcher", "/api/negotiations?participantId=pharmaco")).body
      .length;

    // its only dataset withdrawn: nothing of it is in the catalogue
    const bundleAfter = await negotiate("fhir-cohort-bundle", bundle.address, bundle.offer!.id);
    expect([bundleAfter.status, bundleAfter.body]).toEqual([
      404,
      {
        error:
          "None of the datasets of fhir-cohort-bundle is in the catalogue (dataset-alphaklinik-diabetes): a dataset withdrawn from it, or never published, is not contracted for",
      },
    ]);
    // drawn from the withdrawn dataset and one still published, which the permit does not name
    const omopAfter = await negotiate("omop-cohort-statistics", omop.address, omop.offer!.id);
    expect(omopAfter.status).toBe(403);
    expect(omopAfter.body.permitRequired).toEqual({
      organisation: "PharmaCo Research AG",
      assetId: "omop-cohort-statistics",
      datasets: ["dataset-alphaklinik-ehr"],
    });
    // nothing was started at the connector
    expect((await send("researcher", "/api/negotiations?participantId=pharmaco")).body).toHaveLength(
      negotiationsBefore,
    );
    // each refusal on the audit log with its reason
    const audited = (
      await send("admin", "/api/admin/audit?action=negotiation.start&outcome=failure&limit=1000")
    ).body as Json[];
    expect(audited.map((e: Json) => e.target)).toEqual(
      expect.arrayContaining([
        `pharmaco -> ${ALPHA_DID}: fhir-cohort-bundle (none of its datasets in the catalogue)`,
        `pharmaco -> ${ALPHA_DID}: omop-cohort-statistics (no data permit)`,
      ]),
    );

    // the agreement made before: its pull is refused, naming the dataset, and audited so; nothing is pulled
    const contract = before.body.contractAgreementId;
    await expect(pull(transferBefore)).rejects.toMatchObject({
      status: 410,
      message: `Every dataset contract ${contract} covers has been withdrawn from the catalogue (${DIABETES}): no record of it leaves, nothing was pulled`,
    });
    expect((await auditOf("transfer.pull")).map((e: Json) => [e.target, e.outcome])).toContainEqual([
      `pharmaco: ${transferBefore} (data permit ${permitId}, pseudonymised)`,
      `refused: datasets withdrawn (${DIABETES})`,
    ]);
  });

  it("each refused start is audited with what happened: no permit register, or a permit check that failed", async () => {
    const rt = server.services.dataspace.runtime;
    const register = rt.permits!;
    const omop = await offered("omop-cohort-statistics");
    try {
      rt.permits = undefined;
      const none = await negotiate("omop-cohort-statistics", omop.address, omop.offer!.id);
      expect([none.status, none.body.error]).toEqual([503, NO_PERMIT_REGISTER]);
      // the access body's store busy while the permit is looked up
      const busy = Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });
      rt.permits = { ...register, validFor: () => Promise.reject(busy) };
      const failed = await negotiate("omop-cohort-statistics", omop.address, omop.offer!.id);
      expect(failed.status).toBe(503);
    } finally {
      rt.permits = register;
    }
    const targets = (await auditOf("negotiation.start")).map((e: Json) => e.target);
    expect(targets).toEqual(
      expect.arrayContaining([
        `pharmaco -> ${ALPHA_DID}: omop-cohort-statistics (permit register unavailable)`,
        `pharmaco -> ${ALPHA_DID}: omop-cohort-statistics (not checked: ${STORE_BUSY})`,
      ]),
    );
  });

  it("an asset drawn from its own default dataset, not published yet, is still contracted for (as registered: 0096)", async () => {
    // a permit register that holds one for every dataset: only the catalogue check is under test
    server.services.dataspace.usePermits(standInPermits);
    const draft = `draft-${Date.now().toString(36)}`;
    const asset = await send("clinic", "/api/assets", {
      participantId: ALPHA,
      assetId: draft,
      name: draft,
      disclosure: "aggregate",
      policyId: "policy-secondary-use",
    });
    expect(asset.status).toBe(201);
    const offer = await offered(draft);
    const started = await negotiate(draft, offer.address, offer.offer!.id);
    expect([started.status, started.body.state]).toEqual([201, "FINALIZED"]);
  });

  it("an agreement on a withdrawn dataset and one still published releases the latter's and names the withdrawn one", async () => {
    // (the stand-in register of the test above: a permit for every dataset)
    const stamp = Date.now().toString(36);
    const [dataset, assetId] = [`dataset-passing-${stamp}`, `mixed-${stamp}`];
    expect((await send("clinic", "/api/catalog", { id: dataset, title: "Passing cohort" })).status).toBe(201);
    const asset = await send("clinic", "/api/assets", {
      participantId: ALPHA,
      assetId,
      name: assetId,
      datasets: [dataset, "dataset-alphaklinik-ehr"],
      disclosure: "aggregate",
      policyId: "policy-secondary-use",
    });
    expect(asset.status).toBe(201);
    const offer = await offered(assetId);
    const agreed = await negotiate(assetId, offer.address, offer.offer!.id);
    expect(agreed.body.state).toBe("FINALIZED");
    const transferId = await transferred(agreed.body, assetId);
    expect((await as.get("clinic")!.api(`/api/catalog?id=${dataset}`, { method: "DELETE" })).status).toBe(
      204,
    );

    const pulled: Json = await pull(transferId);
    expect(pulled.withdrawnDatasets).toEqual([dataset]);
    expect(pulled.data.resourceType).toBe("MeasureReport");
    expect(pulled.data.patients.count).toBeGreaterThan(0); // the EHR dataset's patients, still released
    const entry = (await auditOf("transfer.pull")).find((e: Json) =>
      e.target.startsWith(`pharmaco: ${transferId} `),
    );
    expect([entry?.target, entry?.outcome]).toEqual([
      `pharmaco: ${transferId} (data permit ${PERMIT_ID}, aggregate); withdrawn: ${dataset}`,
      "success",
    ]);
  });
});
