import { describe, expect, it } from "vitest";
import { offlineNoticeHtml, offlineResponse } from "./offline-notice";
import type { OfficeClosed } from "./office-hours";

const monday = new Date("2026-11-23T06:00:00Z");
const closed: OfficeClosed = {
  open: false,
  reason: "outside-hours",
  nextOpening: monday,
  retryAfterSeconds: 3600,
};

describe("offlineNoticeHtml", () => {
  const html = offlineNoticeHtml({ nextOpening: monday, timeZone: "Europe/Berlin", reason: "outside-hours" });

  it("is a complete standalone page", () => {
    expect(html).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(html).toContain('<meta charset="utf-8">');
    expect(html).toContain("<title>Health Dataspace Hub is offline</title>");
    expect(html).toContain("<h1>Health Dataspace Hub is offline</h1>");
    expect(html.trimEnd()).toMatch(/<\/html>$/);
  });

  it("uses no scripts and no external resources", () => {
    expect(html).not.toMatch(/<script|<link|<img|src=|@import|url\(/i);
    expect(html).toMatch(/<style>[\s\S]*<\/style>/);
  });

  it("says the stack runs only during office hours and when it opens, in words and as ISO time", () => {
    expect(html).toContain("runs only during office hours");
    expect(html).toContain(
      'It opens again on <time datetime="2026-11-23T06:00:00.000Z">Monday, 23 November 2026, 07:00 (Europe/Berlin)</time>.',
    );
  });

  it("says the stack is on hold today on a hold day", () => {
    const hold = offlineNoticeHtml({ nextOpening: monday, timeZone: "Europe/Berlin", reason: "hold" });
    expect(hold).toContain("on hold today");
    expect(hold).not.toContain("office hours");
  });

  it("links to the health probe", () => {
    expect(html).toContain('<a href="/api/health">');
  });

  it("says so when there is no next opening", () => {
    const never = offlineNoticeHtml({ nextOpening: null, timeZone: "Europe/Berlin", reason: "hold" });
    expect(never).toContain("No opening time is scheduled yet.");
    expect(never).not.toContain("<time");
  });

  it("puts the nonce on the style block, escaped", () => {
    const page = offlineNoticeHtml({ nextOpening: null, timeZone: "UTC", reason: "hold", nonce: 'a"b<c' });
    expect(page).toContain('<style nonce="a&#34;b&#60;c">');
  });

  it("names the opening in the given time zone", () => {
    const page = offlineNoticeHtml({ nextOpening: monday, timeZone: "UTC", reason: "hold" });
    expect(page).toContain(">Monday, 23 November 2026, 06:00 (UTC)</time>");
  });
});

describe("offlineResponse", () => {
  it("answers a page with a 503 notice, Retry-After and no-store", async () => {
    const response = offlineResponse(closed, "page", "Europe/Berlin");
    expect(response.status).toBe(503);
    expect(response.headers.get("Retry-After")).toBe("3600");
    expect(response.headers.get("Cache-Control")).toBe("no-store");
    expect(response.headers.get("Content-Type")).toBe("text/html; charset=utf-8");
    const html = await response.text();
    expect(html).toContain("<title>Health Dataspace Hub is offline</title>");
    expect(html).toContain('datetime="2026-11-23T06:00:00.000Z"');
  });

  it("gives the page a strict CSP that admits only its own style block", async () => {
    const response = offlineResponse(closed, "page", "Europe/Berlin");
    const csp = response.headers.get("Content-Security-Policy") ?? "";
    const nonce = /style-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(nonce).toBeDefined();
    expect(await response.text()).toContain(`<style nonce="${nonce}">`);
  });

  it("answers a data route with 503 JSON naming the next opening", async () => {
    const response = offlineResponse(closed, "api", "Europe/Berlin");
    expect(response.status).toBe(503);
    expect(response.headers.get("Retry-After")).toBe("3600");
    expect(response.headers.get("Cache-Control")).toBe("no-store");
    expect(response.headers.get("Content-Type")).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({
      error: "Service unavailable outside office hours",
      nextOpening: "2026-11-23T06:00:00.000Z",
      reason: "outside-hours",
    });
  });

  it("says the service is on hold today on a hold day, with a null next opening if there is none", async () => {
    const hold: OfficeClosed = { open: false, reason: "hold", nextOpening: null, retryAfterSeconds: 86_400 };
    const response = offlineResponse(hold, "api", "Europe/Berlin");
    expect(response.headers.get("Retry-After")).toBe("86400");
    expect(await response.json()).toEqual({
      error: "Service unavailable: on hold today",
      nextOpening: null,
      reason: "hold",
    });
  });
});
