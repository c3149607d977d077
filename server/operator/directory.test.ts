import { afterEach, describe, expect, it } from "vitest";
import { openTestStore, storeDialects, type TestStore } from "../../tests/support/relational";
import { createAuditLog } from "../audit/log";
import { ORGANISATIONS } from "../graph/synthetic/organisations";
import { createDirectory, parseDirectoryInput } from "./directory";

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
});
