import { pub, roles, ADMIN, PATIENT, patientData } from "./access";
import { routesOf } from "./build";
import type { RouteSpec } from "./types";

const patient = routesOf("patient");
const patientApp = routesOf("patient-app");
const eudi = routesOf("eudi");

/** The routes of patients, the companion app and wallet sign-in. */
export const patientRoutes: RouteSpec[] = [
  patient("/api/patient", { GET: [patientData, "Patients visible to the caller"] }),
  patient("/api/patient/profile", { GET: [patientData, "A patient's record"] }),
  patient("/api/patient/insights", { GET: [patientData, "Insight summary of a patient's record"] }),
  patient("/api/patient/research", {
    GET: [patientData, "Research programmes and the patient's consents"],
    POST: [roles(PATIENT, ADMIN), "Grant research consent"],
    DELETE: [roles(PATIENT, ADMIN), "Revoke research consent"],
  }),
  patientApp("/api/patient/observations", {
    GET: [{ kind: "patient-or-device" }, "The patient's observations, filtered"],
  }),
  patientApp("/api/patient/ehr-sync", {
    POST: [{ kind: "patient-or-device" }, "Bring the record up to date from the data holders"],
  }),
  patientApp("/api/patient/app-devices", {
    GET: [roles(PATIENT), "Paired devices"],
    POST: [{ kind: "device-attestation" }, "Complete a pairing from the companion app"],
  }),
  patientApp("/api/patient/app-devices/:deviceId", {
    DELETE: [roles(PATIENT), "Remove a device (revokes its credential)"],
  }),
  patientApp("/api/patient/app-pairing", { POST: [roles(PATIENT), "Start a pairing"] }),
  patientApp("/api/patient/app-pairing/:pairingId", { GET: [roles(PATIENT), "Pairing state"] }),
  patientApp("/api/patient/app/account", {
    DELETE: [{ kind: "patient-or-device" }, "Erase the app account (GDPR Art. 17)"],
  }),
  patientApp("/api/patient/app/record", {
    GET: [{ kind: "patient-or-device" }, "The record as a FHIR R4 Bundle"],
    POST: [{ kind: "patient-or-device" }, "Add self-measured observations"],
  }),
  patientApp("/api/app-accounts", {
    POST: [
      { kind: "device-attestation" },
      "Create an app account from a device attestation (spec: no session)",
    ],
  }),
  patientApp("/api/app-accounts/challenge", {
    POST: [pub, "Single-use attestation nonce (spec: no session)"],
  }),
  eudi("/api/auth/eudi/start", { POST: [pub, "Start a wallet sign-in (spec: no session)"] }),
  eudi("/api/auth/eudi/status", { GET: [pub, "Wallet sign-in state (spec: no session)"] }),
];
