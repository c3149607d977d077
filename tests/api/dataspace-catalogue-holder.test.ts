import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PUBLISHER_NOT_YOURS, WITHDRAW_NOT_YOURS } from "../../server/catalogue/service";
import { startTestServer, type TestServer } from "../support/server";
import { signIn, type Signed } from "../support/signin";

/**
 * Issue 34, smaller holes of the catalogue: every dataset records its holder (the operator's own
 * when the operator published it, withdrawable by the operator only), and the publisher is the
 * publishing organisation, never a free text naming another.
 */
let server: TestServer;
let as: Map<string, Signed>;

const post = (body: unknown): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});
const withdraw = (who: string, id: string) =>
  as.get(who)!.api(`/api/catalog?id=${encodeURIComponent(id)}`, { method: "DELETE" });

beforeAll(async () => {
  server = await startTestServer();
  as = new Map(
    await Promise.all(["admin", "clinic", "lmc"].map(async (u) => [u, await signIn(server.url, u)] as const)),
  );
});
afterAll(async () => server?.close());

describe("catalogue holders and publishers", () => {
  it("records the operator as holder of what it publishes: no data holder withdraws it, the operator does", async () => {
    const created = await as
      .get("admin")!
      .api("/api/catalog", post({ id: "ds-operator-1", title: "Operator's" }));
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ holder: "operator", publisher: "Dataspace Operator" });
    for (const holder of ["clinic", "lmc"]) {
      const refused = await withdraw(holder, "ds-operator-1");
      expect(refused.status, holder).toBe(403);
      expect((await refused.json()).error).toBe(WITHDRAW_NOT_YOURS);
    }
    expect((await withdraw("admin", "ds-operator-1")).status).toBe(204);
  });

  it("takes the publisher from the caller's organisation: another organisation's name is refused, 400, nothing stored", async () => {
    const forged = await as
      .get("clinic")!
      .api("/api/catalog", post({ id: "ds-forged-1", title: "Forged", publisher: "Limburg Medical Centre" }));
    expect(forged.status).toBe(400);
    expect((await forged.json()).error).toBe(PUBLISHER_NOT_YOURS);
    const list = (await (await as.get("clinic")!.api("/api/catalog")).json()) as { id: string }[];
    expect(list.some((d) => d.id === "ds-forged-1")).toBe(false);

    const own = await as
      .get("clinic")!
      .api("/api/catalog", post({ id: "ds-own-1", title: "Own", publisher: "AlphaKlinik Berlin" }));
    expect(own.status).toBe(201);
    expect(await own.json()).toMatchObject({ publisher: "AlphaKlinik Berlin", holder: "alphaklinik-berlin" });
    expect((await withdraw("lmc", "ds-own-1")).status).toBe(403);
    expect((await withdraw("clinic", "ds-own-1")).status).toBe(204);
  });
});
