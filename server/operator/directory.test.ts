import { describe, expect, it } from "vitest";
import { didWebUrl } from "../credentials/verify";
import { didProblem, slugFor } from "./directory";

describe("DID checks of the participant directory", () => {
  it("accepts DIDs of the W3C DID Core syntax", () => {
    for (const did of [
      "did:web:lmc.nl:participant",
      "did:web:example.org",
      "did:web:localhost%3A8443:p",
      "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK",
      "did:example:123%20x",
    ]) {
      expect(didProblem(did), did).toBeNull();
    }
  });

  it("names what is wrong", () => {
    expect(didProblem("lmc")).toMatch(/is not a valid DID/);
    expect(didProblem("did:web")).toMatch(/is not a valid DID/);
    expect(didProblem("did:Web:x.org")).toMatch(/is not a valid DID/);
    expect(didProblem("did:web:x.org:")).toMatch(/is not a valid DID/);
    expect(didProblem("did:web:exa mple.org")).toMatch(/is not a valid DID/);
    expect(didProblem("did:web:-bad-.org")).toMatch(/did:web needs a domain name/);
    expect(didProblem("did:web:nodot")).toMatch(/did:web needs a domain name/);
    expect(didProblem(`did:web:${"a".repeat(600)}.org`)).toMatch(/too long/);
  });

  it("derives ids and did:web document addresses", () => {
    expect(slugFor("Hôpital Saint-Éloi")).toBe("hopital-saint-eloi");
    expect(didWebUrl("did:web:lmc.nl:participant")).toBe("https://lmc.nl/participant/did.json");
    expect(didWebUrl("did:web:example.org")).toBe("https://example.org/.well-known/did.json");
    expect(didWebUrl("did:web:localhost%3A8443")).toBe("https://localhost:8443/.well-known/did.json");
    expect(didWebUrl("did:key:z6Mk")).toBeUndefined();
  });
});
