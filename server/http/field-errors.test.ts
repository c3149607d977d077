import { describe, expect, it } from "vitest";
import { errorResponse } from "./errors";
import { formFieldErrorsOf, invalidField, invalidFields, missingFields } from "./field-errors";

describe("field errors", () => {
  it("missingFields names each falsy value and keeps the API's text", () => {
    const e = missingFields(
      { did: "did:web:x", displayName: "", country: undefined },
      "did and displayName are required",
    );
    expect(e.status).toBe(400);
    expect(e.message).toBe("did and displayName are required");
    expect(e.fields).toEqual([
      { path: "displayName", message: "Required" },
      { path: "country", message: "Required" },
    ]);
  });

  it("the JSON body stays { error, ...extra }: the field list is not part of it", async () => {
    const plain = await errorResponse(invalidField("role", "role must be one of X")).text();
    expect(plain).toBe('{"error":"role must be one of X"}');
    const withExtra = errorResponse(
      invalidFields("too short", [{ path: "days", message: "too short" }], 400, {
        kind: "audit",
        minimumDays: 7,
      }),
    );
    expect(withExtra.status).toBe(400);
    expect(await withExtra.text()).toBe('{"error":"too short","kind":"audit","minimumDays":7}');
  });

  it("a form sees one entry per form field (the path's first segment), the first message winning", () => {
    const e = invalidFields("conformsTo.0: Invalid URL", [
      { path: "conformsTo.0", message: "Invalid URL" },
      { path: "conformsTo.1", message: "Invalid URL too" },
      { path: "title", message: "Required" },
    ]);
    expect(formFieldErrorsOf(e)).toEqual([
      { field: "conformsTo", message: "Invalid URL" },
      { field: "title", message: "Required" },
    ]);
    expect(formFieldErrorsOf(new Error("plain"))).toEqual([]);
  });
});
