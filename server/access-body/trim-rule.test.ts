import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { jsonSchemaOf } from "../openapi/document";
import { completenessSchema, resultActionSchema, submitApplicationSchema } from "./model";

/**
 * Issue 39: the access body's schemas say what they accept. Free text is checked as sent (not blank,
 * at most its length) and stored trimmed, which the document states; identifiers are never trimmed:
 * surrounding white space is refused. The document's JSON Schema and zod agree on each sample.
 */

const ajv = new Ajv2020({ strict: false, validateFormats: false });
const agree = (schema: Parameters<typeof jsonSchemaOf>[0], value: unknown) => {
  const byDocument = ajv.compile(jsonSchemaOf(schema))(value);
  const byServer = schema.safeParse(value).success;
  return { byDocument, byServer };
};

const application = {
  title: "Cardiac outcomes",
  summary: "A study",
  purpose: "scientificResearch",
  datasets: ["ds-1"],
};

describe("the access body's trimming rule, as the document states it", () => {
  it("refuses blank free text, and the document says so", () => {
    const release = { resultId: "r-1", action: "release", note: " " };
    expect(agree(resultActionSchema, release)).toEqual({ byDocument: false, byServer: false });
    expect(agree(resultActionSchema, { ...release, note: "ok" })).toEqual({
      byDocument: true,
      byServer: true,
    });
  });

  it("stores free text trimmed, its length counted as sent", () => {
    const parsed = submitApplicationSchema.parse({ ...application, title: "  Cardiac outcomes \n" });
    expect(parsed.title).toBe("Cardiac outcomes");
    const long = { ...application, title: ` ${"x".repeat(300)}` };
    expect(agree(submitApplicationSchema, long)).toEqual({ byDocument: false, byServer: false });
    const note = { applicationId: "app-1", complete: true, note: "  " };
    expect(agree(completenessSchema, note)).toEqual({ byDocument: true, byServer: true });
    expect(completenessSchema.parse(note).note).toBe("");
  });

  it("refuses an identifier with surrounding white space instead of trimming it", () => {
    for (const id of ["\u000bds-1", "ds-1 ", " ds-1"]) {
      const body = { ...application, datasets: [id] };
      expect(agree(submitApplicationSchema, body)).toEqual({ byDocument: false, byServer: false });
    }
    expect(agree(submitApplicationSchema, application)).toEqual({ byDocument: true, byServer: true });
    expect(submitApplicationSchema.parse(application).datasets).toEqual(["ds-1"]);
  });
});
