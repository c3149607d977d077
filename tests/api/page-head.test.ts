import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server";
import { signIn } from "../support/signin";

/**
 * What search engines and Lighthouse's SEO audit read in every page's head (issue 40, decision 0058):
 * the language, a title and exactly one description with text, signed in or not.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ SEED_PATIENTS: "20" });
});
afterAll(async () => server?.close());

const PAGES: [string | null, string][] = [
  [null, "/"],
  [null, "/auth/signin"],
  [null, "/information"],
  ["admin", "/"],
  ["regulator", "/access-body"],
  ["researcher", "/catalogue"],
  ["admin", "/graph"],
  ["patient1", "/my-record"],
];

describe("page heads", () => {
  it("have a language, a title and one description on every page", async () => {
    const cookies = new Map<string, string>();
    for (const [persona, path] of PAGES) {
      if (persona && !cookies.has(persona)) cookies.set(persona, (await signIn(server.url, persona)).cookie);
      const res = await fetch(server.url + path, {
        headers: { accept: "text/html", ...(persona ? { cookie: cookies.get(persona)! } : {}) },
        redirect: "manual",
      });
      expect(res.status, `${persona ?? "visitor"} ${path}`).toBe(200);
      const html = await res.text();
      const head = html.slice(0, html.indexOf("</head>"));
      expect(head, path).toMatch(/^<!DOCTYPE html><html lang="en"/);
      expect(head, path).toMatch(/<title>[^<]+<\/title>/);
      const descriptions = [...head.matchAll(/<meta name="description" content="([^"]*)"/g)].map((m) => m[1]);
      expect(descriptions, `${persona ?? "visitor"} ${path}`).toHaveLength(1);
      expect(descriptions[0].length, path).toBeGreaterThan(40);
    }
  });
});
