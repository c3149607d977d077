import { describe, expect, it } from "vitest";
import { NOT_YOUR_CONTEXT } from "../../server/dataspace/acting";
import { type JsonBody, ALPHA_DID, localDataspaceHarness } from "./dataspace-local.support";

/**
 * Issue 34, point 1: each organisation acts only as itself. Against the embedded dataspace, through
 * the route handlers: every role but CONNECTOR_ADMIN reads and writes only its own organisation's
 * participant context (403 otherwise), and another organisation's demonstration record by id answers
 * the same 404 as an unknown id.
 */

const h = localDataspaceHarness();
const { call } = h;

const LMC_DSP = () => `${h.ds.local!.protocolBaseUrl}/lmc/2025-1`;

describe("acting participants", () => {
  it("refuses a list of another organisation's negotiations and transfers (403), answers the own", async () => {
    for (const [as, other] of [
      ["clinic", "pharmaco"],
      ["researcher", "lmc"],
    ]) {
      for (const key of ["GET /api/negotiations", "GET /api/transfers"]) {
        const res = await call(key, { query: { participantId: other }, as });
        expect(res.status, `${as} ${key} ${other}`).toBe(403);
        expect(res.body.error).toBe(NOT_YOUR_CONTEXT);
      }
    }
    const own = await call("GET /api/negotiations", {
      query: { participantId: "pharmaco" },
      as: "researcher",
    });
    expect(own.status).toBe(200);
    const admin = await call("GET /api/transfers", { query: { participantId: "lmc" }, as: "admin" });
    expect(admin.status).toBe(200);
  });

  it("refuses another organisation's provider catalogue fetch and by-id reads", async () => {
    const catalog = await call("GET /api/negotiations", {
      query: { participantId: "pharmaco", catalog: "true", providerDid: ALPHA_DID },
      as: "clinic",
    });
    expect(catalog.status).toBe(403);
    for (const key of ["GET /api/negotiations/:id", "GET /api/transfers/:id"]) {
      const res = await call(key, {
        params: { id: "negotiation-demo-pharmaco-alpha-001" },
        query: { participantId: "pharmaco" },
        as: "lmc",
      });
      expect(res.status, key).toBe(403);
    }
    const assets = await call("GET /api/assets", { query: { participantId: "lmc" }, as: "clinic" });
    expect(assets.status).toBe(403);
  });

  it("refuses to start a negotiation or a transfer in another organisation's name, and starts nothing", async () => {
    const before = (await call("GET /api/negotiations", { query: { participantId: "pharmaco" } })).body
      .length;
    const negotiation = await call("POST /api/negotiations", {
      as: "clinic",
      body: {
        participantId: "pharmaco",
        counterPartyAddress: LMC_DSP(),
        counterPartyId: "lmc",
        offerId: "any-offer",
        assetId: "fhir-patient-everything",
      },
    });
    expect(negotiation.status).toBe(403);
    expect(negotiation.body.error).toBe(NOT_YOUR_CONTEXT);
    const transfer = await call("POST /api/transfers", {
      as: "clinic",
      body: {
        participantId: "pharmaco",
        contractId: "agreement-fhir-cohort-bundle-001",
        counterPartyAddress: LMC_DSP(),
        assetId: "fhir-patient-everything",
      },
    });
    expect(transfer.status).toBe(403);
    const after = (await call("GET /api/negotiations", { query: { participantId: "pharmaco" } })).body.length;
    expect(after).toBe(before);
    const transfers = await call("GET /api/transfers", { query: { participantId: "pharmaco" } });
    expect(
      transfers.body.some(
        (t: JsonBody) =>
          t.contractId === "agreement-fhir-cohort-bundle-001" &&
          !t["@id"].startsWith("transfer-demo-pharmaco"),
      ),
    ).toBe(false);
  });

  it("refuses to plant an asset in another organisation's catalogue; registers one in the own", async () => {
    const planted = await call("POST /api/assets", {
      as: "clinic",
      body: { participantId: "lmc", assetId: "planted-by-clinic", name: "Planted" },
    });
    expect(planted.status).toBe(403);
    const lmc = await call("GET /api/assets", { query: { participantId: "lmc" }, as: "lmc" });
    expect(lmc.status).toBe(200);
    expect(lmc.body.map((a: JsonBody) => a["@id"])).not.toContain("planted-by-clinic");
    const own = await call("POST /api/assets", {
      as: "clinic",
      body: { participantId: "alphaklinik-berlin", assetId: "own-by-clinic", name: "Own" },
    });
    expect(own.status).toBe(201);
  });

  it("answers the caller's mistakes the connector finds with a 4xx, never the 502 of a failed connector (issue 39)", async () => {
    const body = { participantId: "alphaklinik-berlin", assetId: "twice-by-admin", name: "Twice" };
    expect((await call("POST /api/assets", { body })).status).toBe(201);
    const again = await call("POST /api/assets", { body });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatch(/exists already/);
    const nobody = await call("POST /api/assets", {
      body: { participantId: "no-such-context", assetId: "x", name: "X" },
    });
    expect(nobody.status).toBe(404);
    expect(nobody.body.error).toBe("The participant context is not known to the connector");
    const huge = await call("POST /api/assets", {
      body: { participantId: "p".repeat(100_000), assetId: "x", name: "X" },
    });
    expect(huge.status).toBe(400);
  });

  it("answers another organisation's demonstration transfer and negotiation by id with the 404 of an unknown id", async () => {
    const started = await call("POST /api/transfers", {
      as: "researcher",
      body: {
        participantId: "pharmaco",
        contractId: "agreement-fhir-cohort-bundle-001",
        counterPartyAddress: "https://dsp.alpha-klinik.de/api/dsp",
        assetId: "fhir-cohort-bundle",
      },
    });
    expect(started.status).toBe(201);
    const id = started.body["@id"];
    const own = await call("GET /api/transfers/:id", {
      params: { id },
      query: { participantId: "pharmaco" },
      as: "researcher",
    });
    expect(own.status).toBe(200);
    const unknown = await call("GET /api/transfers/:id", {
      params: { id: "transfer-demo-no-such" },
      query: { participantId: "alphaklinik-berlin" },
      as: "clinic",
    });
    expect(unknown.status).toBe(404);
    for (const [key, other] of [
      ["GET /api/transfers/:id", id],
      ["GET /api/transfers/:id", "transfer-demo-pharmaco-alpha-001"],
    ]) {
      const res = await call(key, {
        params: { id: other },
        query: { participantId: "alphaklinik-berlin" },
        as: "clinic",
      });
      expect(res.status, other).toBe(404);
      expect(res.body).toEqual(unknown.body);
    }
    const unknownNegotiation = await call("GET /api/negotiations/:id", {
      params: { id: "negotiation-demo-no-such" },
      query: { participantId: "alphaklinik-berlin" },
      as: "clinic",
    });
    const othersNegotiation = await call("GET /api/negotiations/:id", {
      params: { id: "negotiation-demo-pharmaco-alpha-001" },
      query: { participantId: "alphaklinik-berlin" },
      as: "clinic",
    });
    expect(othersNegotiation.status).toBe(404);
    expect(othersNegotiation.body).toEqual(unknownNegotiation.body);
    // another organisation's bundled records are not merged into the clinic's lists either
    const list = await call("GET /api/negotiations", {
      query: { participantId: "alphaklinik-berlin" },
      as: "clinic",
    });
    expect(list.body.map((n: JsonBody) => n["@id"])).not.toContain("negotiation-demo-pharmaco-alpha-001");
  });
});

describe("a participant's credentials", () => {
  it("are read by their holder and by the operator and the access body, not by another organisation", async () => {
    const other = await call("GET /api/participants/:id/credentials", {
      params: { id: "pharmaco" },
      as: "clinic",
    });
    expect(other.status).toBe(403);
    expect(other.body.error).toBe(NOT_YOUR_CONTEXT);
    const own = await call("GET /api/participants/:id/credentials", {
      params: { id: "alphaklinik-berlin" },
      as: "clinic",
    });
    expect(own.status).toBe(200);
    expect(Array.isArray(own.body)).toBe(true);
    for (const as of ["admin", "regulator"]) {
      const res = await call("GET /api/participants/:id/credentials", { params: { id: "pharmaco" }, as });
      expect(res.status, as).toBe(200);
    }
  });
});
