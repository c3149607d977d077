import { afterEach, describe, expect, it } from "vitest";
import { openTestStore, storeDialects, type TestStore } from "../../tests/support/relational";
import { createAuditLog } from "../audit/log";
import { ORGANISATIONS } from "../graph/synthetic/organisations";
import {
  createDirectory,
  DATA_PLANE_HOSTS_INVALID,
  DATA_PLANE_HOSTS_TOO_MANY,
  parseDirectoryInput,
} from "./directory";

describe.each(storeDialects())("participant directory on %s", (dialect) => {
  let store: TestStore;
  afterEach(() => store?.close());

  it("seeds the founding participants once, adds and removes entries with their audit entries", async () => {
    store = await openTestStore(dialect);
    const audit = await createAuditLog(store.rel);
    const dir = await createDirectory(store.rel, audit, "http://hub.test");
    const again = await createDirectory(await store.another(), audit, "http://hub.test");
    expect(await again.list()).toHaveLength(ORGANISATIONS.length);
    const input = parseDirectoryInput({
      did: "did:web:example.org",
      displayName: "Example Org",
      country: "nl",
    });
    const e = await dir.add(input, "admin");
    expect(e).toMatchObject({ id: "example-org", source: "added", country: "NL", catalogueUrl: null });
    await expect(dir.add(input, "admin")).rejects.toMatchObject({ status: 409 });
    const second = await dir.add({ ...input, did: "did:web:example.net" }, "admin");
    expect(second.id).toBe("example-org-2");
    expect((await dir.find("did:web:example.org"))?.id).toBe("example-org");
    const seeded = (await dir.list())[0];
    expect(seeded).toMatchObject({ source: "seeded" });
    expect(seeded.catalogueUrl).toMatch(/^http:\/\/hub\.test\/api\/mock-dsp\//);
    await expect(dir.remove(seeded.did, "admin")).rejects.toMatchObject({ status: 409 });
    await dir.remove("example-org", "admin");
    expect(await dir.find("example-org")).toBeUndefined();
    expect((await audit.list({ kind: "directory" })).map((x) => x.action)).toEqual([
      "directory.remove",
      "directory.add",
      "directory.add",
    ]);
  });

  it("refuses a catalogue address with a user name or password, which it would list back", () => {
    for (const catalogueUrl of [
      "https://user:secret@catalogue.example/dsp",
      "https://user@catalogue.example/",
    ])
      expect(() =>
        parseDirectoryInput({ did: "did:web:example.org", displayName: "Example Org", catalogueUrl }),
      ).toThrow(expect.objectContaining({ status: 400 }));
    expect(
      parseDirectoryInput({
        did: "did:web:example.org",
        displayName: "Example Org",
        catalogueUrl: "https://catalogue.example/dsp",
      }).catalogueUrl,
    ).toBe("https://catalogue.example/dsp");
  });

  it("keeps an entry's data-plane hosts as the pull compares them; seeded and older entries list none", async () => {
    store = await openTestStore(dialect);
    const audit = await createAuditLog(store.rel);
    const dir = await createDirectory(store.rel, audit, "http://hub.test");
    const input = parseDirectoryInput({
      did: "did:web:provider.example",
      displayName: "Provider",
      dataPlaneHosts: [
        "Provider-QNA-Dataplane",
        "dp.provider.example",
        " 10.0.0.7 ",
        "[FD00::0007]",
        "dp.provider.example",
        "svc_dataplane.mvd.svc.cluster.local",
      ],
    });
    expect(input.dataPlaneHosts).toEqual([
      "provider-qna-dataplane",
      "dp.provider.example",
      "10.0.0.7",
      "[fd00::7]",
      "svc_dataplane.mvd.svc.cluster.local",
    ]);
    const e = await dir.add(input, "admin");
    expect(e.dataPlaneHosts).toEqual(input.dataPlaneHosts);
    expect((await dir.find("did:web:provider.example"))?.dataPlaneHosts).toEqual(input.dataPlaneHosts);
    expect((await dir.entryOfDid("did:web:provider.example"))?.dataPlaneHosts).toEqual(input.dataPlaneHosts);
    // by DID only: the entry's id is no provider's name
    expect(await dir.entryOfDid(e.id)).toBeUndefined();
    expect(await dir.entryOfDid("did:web:nobody.example")).toBeUndefined();
    expect((await dir.list()).filter((x) => x.source === "seeded").map((x) => x.dataPlaneHosts)).toEqual(
      ORGANISATIONS.map(() => []),
    );
    const none = await dir.add(
      parseDirectoryInput({ did: "did:web:plain.example", displayName: "Plain" }),
      "admin",
    );
    expect(none.dataPlaneHosts).toEqual([]);
    expect((await audit.list({ kind: "directory" })).map((x) => x.outcome)).toEqual([
      "no catalogue address",
      "no catalogue address; data plane hosts provider-qna-dataplane, dp.provider.example, 10.0.0.7, [fd00::7], svc_dataplane.mvd.svc.cluster.local",
    ]);
  });

  it("refuses data-plane hosts that are not bare host names or IP addresses with a 400, and adds nothing", async () => {
    store = await openTestStore(dialect);
    const audit = await createAuditLog(store.rel);
    const dir = await createDirectory(store.rel, audit, "http://hub.test");
    const before = await dir.list();
    const base = { did: "did:web:provider.example", displayName: "Provider" };
    for (const dataPlaneHosts of [
      "dp.provider.example",
      ["https://dp.provider.example"],
      ["dp.provider.example:8443"],
      ["dp.provider.example/public"],
      ["*.provider.example"],
      ["dp.*.example"],
      ["dp.provider.example."],
      ["user@dp.provider.example"],
      ["-dp.provider.example"],
      ["dp provider"],
      [""],
      [42],
      [null],
      ["127.1"],
      ["0x7f.0.0.1"],
      ["1.2.3.999"],
      ["fd00::1"],
      ["[fd00::1]:8080"],
      ["[not-an-address]"],
      ["dp.provider.example?x=1"],
      ["dp.provider.example#x"],
      ["dp.example%2f"],
      ["ünïcode.example"],
      [`${"a".repeat(64)}.example`],
    ]) {
      let error: unknown;
      try {
        parseDirectoryInput({ ...base, dataPlaneHosts });
      } catch (e) {
        error = e;
      }
      expect(error, JSON.stringify(dataPlaneHosts)).toMatchObject({
        status: 400,
        message: DATA_PLANE_HOSTS_INVALID,
        fields: [{ path: "dataPlaneHosts", message: DATA_PLANE_HOSTS_INVALID }],
      });
    }
    const many = Array.from({ length: 17 }, (_, i) => `dp${i}.provider.example`);
    expect(() => parseDirectoryInput({ ...base, dataPlaneHosts: many })).toThrow(
      expect.objectContaining({ status: 400, message: DATA_PLANE_HOSTS_TOO_MANY }),
    );
    expect(parseDirectoryInput({ ...base, dataPlaneHosts: many.slice(1) }).dataPlaneHosts).toHaveLength(16);
    expect(await dir.list()).toEqual(before);
    expect(await audit.list({ kind: "directory" })).toEqual([]);
  });
});
