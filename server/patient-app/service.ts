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
 * The caller (a Principal) is a PATIENT session or a paired, unrevoked app account that signed the
 * request; its patient id always comes from the server side, never from the request (README.md).
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
