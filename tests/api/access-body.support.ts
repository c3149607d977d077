import { expect } from "vitest";

/** Helpers shared by the test files split from access-body.test.ts. */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are arbitrary JSON, checked by the assertions
export type Json = any;

export function expect409(r: { status: number; body: Json }, currentState: string) {
  expect(r.status).toBe(409);
  expect(r.body).toMatchObject({
    error: expect.any(String),
    currentState,
    allowedNextStates: expect.any(Array),
  });
}
