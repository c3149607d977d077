import { createAccounts } from "./accounts";
import { createErasure } from "./erasure";
import { createPairings } from "./pairings";
import type { PatientAppDeps } from "./principal";
import { createPatientRecord } from "./record";
import { createPatientAppStore } from "./store";

/**
 * The companion app: app accounts bound to a device key, pairing with a patient's record, the
 * record as FHIR R4, self-measured observations, EHR sync and erasure (GDPR Art. 17).
 * The attestation and the device-signed request credential: credentials.ts, README.md.
 *
 * Who is the caller (a Principal): a PATIENT cookie session, or a paired, unrevoked app account that
 * signed this request. Either way the patient id comes from the server side (the session or the
 * account's pairing), never from the request, so every path reaches only the caller's own record.
 */

export type { PatientAppDeps, Principal } from "./principal";

export async function createPatientAppService(deps: PatientAppDeps) {
  const store = await createPatientAppStore(deps.rel);
  const accounts = createAccounts(deps, store);
  const record = createPatientRecord(deps, store);
  return {
    store,
    authenticate: accounts.authenticate,
    challenge: accounts.challenge,
    createAccount: accounts.createAccount,
    ...createPairings(deps, store, accounts, record),
    ...createErasure(deps, store, record),
    record: record.record,
    addObservations: record.addObservations,
    observations: record.observations,
    sync: record.sync,
    lastSync: record.lastSync,
    /** writes the record reads' pending audit batch (services.close, before the store closes) */
    flushLog: record.flushLog,
  };
}
export type PatientAppService = Awaited<ReturnType<typeof createPatientAppService>>;
