import { expect } from "vitest";
import { type Signed } from "../support/signin";

/** Helpers shared by the test files split from patient-app.test.ts. */

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export async function pairingCode(who: Signed): Promise<{ pairingId: string; code: string }> {
  const res = await who.api("/api/patient/app-pairing", { method: "POST" });
  expect(res.status).toBe(201);
  return res.json();
}
