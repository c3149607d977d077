import { describe, expect, it } from "vitest";
import { z } from "zod";
import { checkParams, parseBody, parseQuery, type OperationContract } from "./contract";
import { idField, intQuery, optionalId, requiredText } from "./contract-fields";

const REQUIRED = "participantId, assetId, and name are required";
const contract: OperationContract = {
  query: z.object({ participantId: idField("participantId", "participantId query parameter is required") }),
  body: z
    .looseObject({ participantId: requiredText(REQUIRED), name: requiredText(REQUIRED) })
    .and(z.looseObject({ participantId: idField("participantId") })),
  answers: {},
};
const thrown = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e as { status: number; message: string; fields: { path: string }[] };
  }
  throw new Error("did not throw");
};

describe("route declarations as the dispatcher parses with them", () => {
  it("answers the spec's text word for word for a missing, blank or mistyped required field", () => {
    for (const query of ["", "?participantId=", "?participantId=%20%20"])
      expect(thrown(() => parseQuery(contract, new URLSearchParams(query))).message).toBe(
        "participantId query parameter is required",
      );
    for (const body of [{}, { participantId: 7, name: "x" }, { participantId: " ", name: "x" }, undefined])
      expect(thrown(() => parseBody(contract, body))).toMatchObject({ status: 400, message: REQUIRED });
  });

  it("checks the syntax after presence, with the identifier text of ids.ts; no trimming", () => {
    const e = thrown(() => parseBody(contract, { participantId: "p".repeat(100_000), name: "x" }));
    expect(e.message).toMatch(/^participantId is not a valid identifier/);
    expect(thrown(() => parseBody(contract, { participantId: "\u000bx", name: "x" })).status).toBe(400);
    expect(parseBody(contract, { participantId: "alpha", name: " x " })).toEqual({
      participantId: "alpha",
      name: " x ",
    });
    expect(parseQuery(contract, new URLSearchParams("participantId=a&participantId=b"))).toEqual({
      participantId: "a",
    });
  });

  it("prefixes zod's own messages with the field; optional ids take blank as absent", () => {
    const limit = { query: z.object({ limit: intQuery("limit", 1, 10), p: optionalId("p") }), answers: {} };
    expect(thrown(() => parseQuery(limit, new URLSearchParams("limit=x"))).message).toBe(
      "limit must be an integer",
    );
    expect(thrown(() => parseQuery(limit, new URLSearchParams("limit=11"))).message).toBe(
      "limit must be between 1 and 10",
    );
    expect(parseQuery(limit, new URLSearchParams("p=%20"))).toEqual({ p: " " });
    const typed = { body: z.object({ n: z.number() }), answers: {} };
    expect(thrown(() => parseBody(typed, { n: "1" })).message).toMatch(/^n: /);
  });

  it("refuses a path parameter outside the identifier syntax, unless it is the catch-all", () => {
    expect(() => checkParams(undefined, { id: "alpha-1" })).not.toThrow();
    expect(thrown(() => checkParams(undefined, { id: "a..b" })).status).toBe(400);
    expect(thrown(() => checkParams(undefined, { id: "x".repeat(201) })).status).toBe(400);
    expect(() => checkParams(undefined, { rest: "session/x" })).not.toThrow();
  });
});
