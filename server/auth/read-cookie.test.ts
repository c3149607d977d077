import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readCookie } from "./sessions";

/** the plain reading: split at ";", first part whose trimmed name matches, its value trimmed and URI-decoded */
function reference(header: string | null, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(";")) {
    const i = part.indexOf("=");
    if (i < 0) continue;
    if (part.slice(0, i).trim() === name) {
      const v = part.slice(i + 1).trim();
      try {
        return decodeURIComponent(v);
      } catch {
        return v;
      }
    }
  }
  return null;
}

const NAME = "app-auth.session-token";

describe("readCookie", () => {
  it("reads the named cookie among others, decoded, and nothing else", () => {
    const header = `app-auth.oidc-state:abc=x; idp_session=y; ${NAME}=tok%2Fen.sig; other=${NAME}`;
    expect(readCookie(header, NAME)).toBe("tok/en.sig");
    expect(readCookie(`x${NAME}=1; ${NAME}x=2`, NAME)).toBeNull();
    expect(readCookie(`a=${NAME}=3`, NAME)).toBeNull();
    expect(readCookie(`  ${NAME} = 4 ;b=5`, NAME)).toBe("4");
    expect(readCookie(`${NAME}=%E0%A4%A`, NAME)).toBe("%E0%A4%A");
    expect(readCookie(null, NAME)).toBeNull();
    expect(readCookie("", NAME)).toBeNull();
  });

  it("reads every header as the plain split-and-trim reading does", () => {
    const part = fc.oneof(
      fc.constantFrom(NAME, `${NAME}x`, `x${NAME}`, "idp_session", " ", "", "a b"),
      fc.string({ unit: fc.constantFrom("a", "=", ";", " ", "%", "2", "F", ".", "-", "t") }),
    );
    const header = fc
      .tuple(fc.array(fc.tuple(part, fc.boolean(), part), { maxLength: 6 }), fc.constantFrom(";", "; ", " ;"))
      .map(([parts, separator]) =>
        parts.map(([k, eq, v]) => (eq ? `${k}=${v}` : `${k}${v}`)).join(separator),
      );
    fc.assert(
      fc.property(header, (h) => {
        expect(readCookie(h, NAME)).toBe(reference(h, NAME));
      }),
      { numRuns: 2000 },
    );
  });
});
