import { describe, expect, it } from "vitest";
import { cspFor, generateNonce, isCrossSiteRequest, securityHeaders } from "./security-headers";

describe("securityHeaders", () => {
  it("sets the fixed headers and no HSTS over plain http", () => {
    expect(securityHeaders({ https: false })).toEqual({
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "strict-origin-when-cross-origin",
      "X-Frame-Options": "DENY",
      "Cross-Origin-Opener-Policy": "same-origin",
      "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
    });
  });

  it("adds Strict-Transport-Security over https", () => {
    const headers = securityHeaders({ https: true });
    expect(headers["Strict-Transport-Security"]).toBe("max-age=31536000");
    expect(headers["X-Frame-Options"]).toBe("DENY");
  });

  it("can be passed to Headers as is", () => {
    expect(new Headers(securityHeaders({ https: true })).get("x-content-type-options")).toBe("nosniff");
  });
});

describe("cspFor", () => {
  function directives(csp: string): Map<string, string> {
    return new Map(
      csp.split("; ").map((d) => {
        const [name, ...values] = d.split(" ");
        return [name, values.join(" ")];
      }),
    );
  }

  it("allows scripts only from self and with the nonce, never unsafe-inline", () => {
    const d = directives(cspFor("abc123+/=="));
    expect(d.get("script-src")).toBe("'self' 'nonce-abc123+/=='");
    expect(d.get("default-src")).toBe("'self'");
    expect(d.get("style-src")).toBe("'self' 'unsafe-inline'");
    expect(d.get("img-src")).toBe("'self' data:");
    expect(d.get("connect-src")).toBe("'self'");
    expect(d.get("object-src")).toBe("'none'");
    expect(d.get("base-uri")).toBe("'self'");
    expect(d.get("frame-ancestors")).toBe("'none'");
    expect(d.get("form-action")).toBe("'self'");
    expect(d.size).toBe(9);
  });

  it("allows inline scripts by their hashes instead, each once, and none when there are none", () => {
    const h = "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=";
    expect(directives(cspFor([h, "YWJj", h])).get("script-src")).toBe(`'self' 'sha256-${h}' 'sha256-YWJj'`);
    expect(directives(cspFor([])).get("script-src")).toBe("'self'");
    expect(() => cspFor(["x' 'unsafe-inline"])).toThrow(/hash must be base64/);
  });

  it("lets forms post to further origins, reduced to normalised origins without duplicates", () => {
    const csp = cspFor("n0nce", [
      "https://Keycloak.Example.org:443/realms/hub",
      "https://keycloak.example.org/",
      "http://localhost:8080",
    ]);
    expect(directives(csp).get("form-action")).toBe(
      "'self' https://keycloak.example.org http://localhost:8080",
    );
  });

  it("rejects a form-action entry that is not an http(s) URL", () => {
    expect(() => cspFor("n0nce", ["keycloak.example.org"])).toThrow(
      /"keycloak.example.org" is not an http\(s\) URL/,
    );
    expect(() => cspFor("n0nce", ["javascript:alert(1)"])).toThrow(/not an http\(s\) URL/);
  });

  it("rejects a nonce that could inject directives", () => {
    expect(() => cspFor("x'; script-src *")).toThrow(/nonce must be base64/);
    expect(() => cspFor("")).toThrow(/nonce must be base64/);
  });
});

describe("generateNonce", () => {
  it("gives 16 random bytes in base64, different each time", () => {
    const a = generateNonce();
    const b = generateNonce();
    expect(a).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(atob(a)).toHaveLength(16);
    expect(a).not.toBe(b);
    expect(() => cspFor(a)).not.toThrow();
  });

  it("never hands out the same nonce twice, across refills of its random pool", () => {
    const seen = new Set(Array.from({ length: 1000 }, () => generateNonce()));
    expect(seen.size).toBe(1000);
  });
});

describe("isCrossSiteRequest", () => {
  const allowed = ["https://hub.example.org"];
  const request = (method: string, headers: Record<string, string> = {}) =>
    new Request("https://hub.example.org/api/assets", { method, headers });

  it.each(["POST", "PUT", "PATCH", "DELETE", "patch"])("rejects %s from another origin", (method) => {
    expect(isCrossSiteRequest(request(method, { Origin: "https://evil.example.com" }), allowed)).toBe(true);
  });

  it.each(["GET", "HEAD", "OPTIONS"])("never treats %s as foreign", (method) => {
    const headers = { Origin: "https://evil.example.com", "Sec-Fetch-Site": "cross-site" };
    expect(isCrossSiteRequest(request(method, headers), allowed)).toBe(false);
  });

  it("accepts an allowed origin, compared after normalisation", () => {
    expect(isCrossSiteRequest(request("POST", { Origin: "https://hub.example.org" }), allowed)).toBe(false);
    expect(isCrossSiteRequest(request("POST", { Origin: "https://HUB.example.org:443" }), allowed)).toBe(
      false,
    );
    expect(
      isCrossSiteRequest(request("POST", { Origin: "https://hub.example.org" }), [
        "https://hub.example.org/",
      ]),
    ).toBe(false);
  });

  it("rejects the same host on another scheme or port", () => {
    expect(isCrossSiteRequest(request("POST", { Origin: "http://hub.example.org" }), allowed)).toBe(true);
    expect(isCrossSiteRequest(request("POST", { Origin: "https://hub.example.org:8443" }), allowed)).toBe(
      true,
    );
  });

  it("rejects an opaque origin (Origin: null) and an unparseable one", () => {
    expect(isCrossSiteRequest(request("POST", { Origin: "null" }), allowed)).toBe(true);
    expect(isCrossSiteRequest(request("POST", { Origin: "not an origin" }), allowed)).toBe(true);
  });

  it("lets the Origin header decide over Sec-Fetch-Site", () => {
    const headers = { Origin: "https://hub.example.org", "Sec-Fetch-Site": "cross-site" };
    expect(isCrossSiteRequest(request("POST", headers), allowed)).toBe(false);
  });

  it("falls back to Sec-Fetch-Site when there is no Origin header", () => {
    expect(isCrossSiteRequest(request("POST", { "Sec-Fetch-Site": "cross-site" }), allowed)).toBe(true);
    expect(isCrossSiteRequest(request("POST", { "Sec-Fetch-Site": "same-origin" }), allowed)).toBe(false);
    expect(isCrossSiteRequest(request("POST", { "Sec-Fetch-Site": "same-site" }), allowed)).toBe(false);
    expect(isCrossSiteRequest(request("POST", { "Sec-Fetch-Site": "none" }), allowed)).toBe(false);
  });

  it("allows clients that send neither header (curl, server-to-server)", () => {
    expect(isCrossSiteRequest(request("POST"), allowed)).toBe(false);
  });

  it("treats every origin as foreign when none is allowed", () => {
    expect(isCrossSiteRequest(request("POST", { Origin: "https://hub.example.org" }), [])).toBe(true);
  });
});
