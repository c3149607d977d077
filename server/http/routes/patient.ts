import { pub, roles, ADMIN, PATIENT, patientData } from "./access";
import type { RouteSpec } from "./types";

/** The routes of patients, the companion app and wallet sign-in. */
export const patientRoutes: RouteSpec[] = [
  {
    path: "/api/patient",
    capability: "patient",
    methods: { GET: { access: patientData, summary: "Patients visible to the caller" } },
  },
  {
    path: "/api/patient/profile",
    capability: "patient",
    methods: { GET: { access: patientData, summary: "A patient's record" } },
  },
  {
    path: "/api/patient/insights",
    capability: "patient",
    methods: { GET: { access: patientData, summary: "Insight summary of a patient's record" } },
  },
  {
    path: "/api/patient/research",
    capability: "patient",
    methods: {
      GET: { access: patientData, summary: "Research programmes and the patient's consents" },
      POST: { access: roles(PATIENT, ADMIN), summary: "Grant research consent" },
      DELETE: { access: roles(PATIENT, ADMIN), summary: "Revoke research consent" },
    },
  },
  {
    path: "/api/patient/observations",
    capability: "patient-app",
    methods: {
      GET: { access: { kind: "patient-or-device" }, summary: "The patient's observations, filtered" },
    },
  },
  {
    path: "/api/patient/ehr-sync",
    capability: "patient-app",
    methods: {
      POST: {
        access: { kind: "patient-or-device" },
        summary: "Bring the record up to date from the data holders",
      },
    },
  },
  {
    path: "/api/patient/app-devices",
    capability: "patient-app",
    methods: {
      GET: { access: roles(PATIENT), summary: "Paired devices" },
      POST: { access: { kind: "device-attestation" }, summary: "Complete a pairing from the companion app" },
    },
  },
  {
    path: "/api/patient/app-devices/:deviceId",
    capability: "patient-app",
    methods: { DELETE: { access: roles(PATIENT), summary: "Remove a device (revokes its credential)" } },
  },
  {
    path: "/api/patient/app-pairing",
    capability: "patient-app",
    methods: { POST: { access: roles(PATIENT), summary: "Start a pairing" } },
  },
  {
    path: "/api/patient/app-pairing/:pairingId",
    capability: "patient-app",
    methods: { GET: { access: roles(PATIENT), summary: "Pairing state" } },
  },
  {
    path: "/api/patient/app/account",
    capability: "patient-app",
    methods: {
      DELETE: { access: { kind: "patient-or-device" }, summary: "Erase the app account (GDPR Art. 17)" },
    },
  },
  {
    path: "/api/patient/app/record",
    capability: "patient-app",
    methods: {
      GET: { access: { kind: "patient-or-device" }, summary: "The record as a FHIR R4 Bundle" },
      POST: { access: { kind: "patient-or-device" }, summary: "Add self-measured observations" },
    },
  },
  {
    path: "/api/app-accounts",
    capability: "patient-app",
    methods: {
      POST: {
        access: { kind: "device-attestation" },
        summary: "Create an app account from a device attestation (spec: no session)",
      },
    },
  },
  {
    path: "/api/app-accounts/challenge",
    capability: "patient-app",
    methods: { POST: { access: pub, summary: "Single-use attestation nonce (spec: no session)" } },
  },
  {
    path: "/api/auth/eudi/start",
    capability: "eudi",
    methods: { POST: { access: pub, summary: "Start a wallet sign-in (spec: no session)" } },
  },
  {
    path: "/api/auth/eudi/status",
    capability: "eudi",
    methods: { GET: { access: pub, summary: "Wallet sign-in state (spec: no session)" } },
  },
];
