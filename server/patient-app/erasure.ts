import { isSelfMeasured } from "./fhir";
import { auditIn, type PatientAppDeps, type Principal } from "./principal";
import type { PatientRecord } from "./record";
import type { AccountRow, PatientAppStore } from "./store";

/** DELETE /api/patient/app/account (GDPR Art. 17): what is erased, and what is retained and why. */
export function createErasure(
  deps: PatientAppDeps,
  store: PatientAppStore,
  record: Pick<PatientRecord, "observationNodes">,
) {
  const { audit, graph } = deps;
  const { rel } = store;
  const { observationNodes } = record;

  return {
    async erase(principal: Principal) {
      const accounts =
        principal.kind === "patient"
          ? await store.accountsOfPatient(principal.patientId)
          : [await store.account(principal.accountId)].filter((a): a is AccountRow => !!a);
      const accountIds = new Set(accounts.map((a) => a.id));
      // self-measured observations: all of the patient's (session) or those this app account made (device)
      let observationIds: string[] = [];
      if (principal.patientId) {
        observationIds = (await observationNodes(principal.patientId))
          .filter(
            (n) =>
              isSelfMeasured(n) &&
              (principal.kind === "patient" || accountIds.has(String(n.properties.appAccountId))),
          )
          .map((n) => n.id);
      }
      const erasedAt = new Date().toISOString();
      for (let i = 0; i < observationIds.length; i += 500) {
        const batch = observationIds.slice(i, i + 500);
        await graph.mutate(
          batch.map((id) => ({ op: "deleteNode" as const, id })),
          {
            action: "patient-app.observation.erase",
            actor: principal.actor,
            target: principal.patientId ?? principal.actor,
            outcome: `${batch.length} self-measured observations erased`,
            kind: "patient-app",
          },
        );
      }
      const counts = await rel.tx(async (tx) => {
        let requestTokenIds = 0;
        let pairings = 0;
        for (const a of accounts) {
          requestTokenIds += await store.deleteJtisOfAccount(a.id, tx);
          pairings += await store.deletePairingsOfAccount(a.id, tx);
          await store.deleteAccount(a.id, tx);
        }
        let syncLedgerEntries = 0;
        if (principal.kind === "patient") {
          pairings += await store.deletePairingsOfPatient(principal.patientId, tx);
          syncLedgerEntries =
            (await store.deleteSyncItemsOfPatient(principal.patientId, tx)) +
            (await store.deleteSyncRunsOfPatient(principal.patientId, tx));
        }
        await auditIn(audit, tx, {
          action: "patient-app.account.erase",
          actor: principal.actor,
          target: principal.patientId ?? principal.actor,
          outcome: `erased ${accounts.length} app accounts, ${observationIds.length} self-measured observations`,
        });
        return { requestTokenIds, pairings, syncLedgerEntries };
      });
      return {
        erasedAt,
        legalBasis: "GDPR Art. 17 (right to erasure)",
        scope:
          principal.kind === "patient"
            ? "all companion app data of your record"
            : "this app account and the data it added",
        erased: {
          appAccounts: accounts.length,
          devices: accounts.map((a) => ({
            deviceId: a.id,
            name: a.device_name ?? "Companion app",
            status: a.status,
          })),
          deviceCredentials: accounts.length,
          selfMeasuredObservations: observationIds.length,
          pairings: counts.pairings,
          requestTokenIds: counts.requestTokenIds,
          syncLedgerEntries: counts.syncLedgerEntries,
        },
        retained: [
          "Records your data holders keep (encounters, conditions, holder observations, medication requests): they are the holders' records, not app data; ask them to erase or correct them.",
          "Audit log entries that an app account existed and was erased (who, when, what kind), without the measurements: GDPR Art. 17(3)(b) and (e).",
        ],
      };
    },
  };
}
