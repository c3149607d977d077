import { describe, expect, it } from "vitest";
import type { Role } from "../auth/personas";
import type { SessionUser } from "../auth/user";
import { ADMIN, REGULATOR, RESEARCHER } from "../analytics/test-support";
import { accessBodySignals, createAccessBodySignals, type AccessBodyPort } from "./access-body-signals";

/**
 * The overview's access-body signals are kept per version of the module's records, persona, caller
 * and day (createAccessBodySignals): the same signals as read afresh, kept apart per organisation, and
 * a write (a new version) or a new day shows at the next read.
 */

const OTHER_USER: SessionUser = {
  ...RESEARCHER,
  username: "other",
  sub: "other",
  organisation: "Other Research GmbH",
  participantDid: "did:web:other.example:research",
};

/** an access-body module over records in memory, counting its list reads; `write` is a new version */
function fakeModule() {
  let version = 1;
  let reads = 0;
  const overseer = (u: SessionUser) => u.roles.some((r) => r === "HDAB_AUTHORITY" || r === "CONNECTOR_ADMIN");
  const apps = [
    { state: "RECEIVED", organisation: RESEARCHER.organisation },
    { state: "GRANTED", organisation: RESEARCHER.organisation },
    { state: "UNDER_ASSESSMENT", organisation: OTHER_USER.organisation },
  ];
  const permits = [
    { state: "ACTIVE", validUntil: "2031-03-01", organisation: RESEARCHER.organisation },
    { state: "ACTIVE", validUntil: "2035-01-01", organisation: OTHER_USER.organisation },
  ];
  const requests = [{ state: "OPEN", organisation: OTHER_USER.organisation }];
  const mine = <T extends { organisation: string }>(u: SessionUser, list: T[]) => {
    reads++;
    return list.filter((r) => overseer(u) || r.organisation === u.organisation);
  };
  const port: AccessBodyPort = {
    readyVersion: async () => String(version),
    workQueue: async () => {
      reads++;
      return {
        items: apps
          .filter((a) => a.state !== "GRANTED")
          .map((a) => ({ kind: "application", state: a.state, waitingOn: "access body", overdue: false })),
      };
    },
    listApplications: async (u) => mine(u, apps),
    listPermits: async (u, f) => mine(u, permits).filter((p) => !f?.state || p.state === f.state),
    listInformationRequests: async (u, f) =>
      mine(u, requests).filter((r) => !f?.state || r.state === f.state),
  };
  const { readyVersion: _unversioned, ...unversioned } = port;
  return {
    port,
    /** the same module without readyVersion: read each time */
    unversioned: unversioned as Partial<AccessBodyPort>,
    reads: () => reads,
    write(app: { state: string; organisation: string }) {
      apps.push(app);
      version++;
    },
  };
}

const CALLERS: [Role, SessionUser][] = [
  ["DATA_USER", RESEARCHER],
  ["DATA_USER", OTHER_USER],
  ["HDAB_AUTHORITY", REGULATOR],
  ["CONNECTOR_ADMIN", ADMIN],
];

describe("the overview's access-body signals, kept", () => {
  it("are the signals read afresh for every caller, and read once while nothing changed", async () => {
    const m = fakeModule();
    const kept = createAccessBodySignals();
    const opts = { now: () => new Date("2030-12-15T10:00:00Z"), timeoutMs: 1000 };
    for (const [persona, user] of CALLERS) {
      const fresh = await accessBodySignals(persona, user, m.unversioned, opts);
      expect(await kept(persona, user, m.port, opts), user.username).toEqual(fresh);
      const reads = m.reads();
      expect(await kept(persona, user, m.port, opts)).toEqual(fresh);
      expect(m.reads()).toBe(reads);
    }
  });

  it("keeps organisations apart and shows a write at the next read", async () => {
    const m = fakeModule();
    const kept = createAccessBodySignals();
    const opts = { now: () => new Date("2030-12-15T10:00:00Z"), timeoutMs: 1000 };
    const inProgress = async (user: SessionUser) =>
      (await kept("DATA_USER", user, m.port, opts)).find((s) => s.id === "ab-applications")?.value;
    expect(await inProgress(RESEARCHER)).toBe(1);
    expect(await inProgress(OTHER_USER)).toBe(1);
    expect(
      (await kept("DATA_USER", OTHER_USER, m.port, opts)).find((s) => s.id === "ab-information-requests")
        ?.value,
    ).toBe(1);
    expect(
      (await kept("DATA_USER", RESEARCHER, m.port, opts)).find((s) => s.id === "ab-information-requests")
        ?.value,
    ).toBe(0);
    m.write({ state: "RECEIVED", organisation: RESEARCHER.organisation });
    expect(await inProgress(RESEARCHER)).toBe(2);
    expect(await inProgress(OTHER_USER)).toBe(1);
    const open = await kept("HDAB_AUTHORITY", REGULATOR, m.port, opts);
    expect(open.find((s) => s.id === "ab-open-tasks")?.value).toBe(3);
  });

  it("shows a new day: a permit comes within 90 days of its end", async () => {
    const m = fakeModule();
    const kept = createAccessBodySignals();
    let now = new Date("2030-11-30T10:00:00Z");
    const opts = { now: () => now, timeoutMs: 1000 };
    const expiring = async () =>
      (await kept("DATA_USER", RESEARCHER, m.port, opts)).find((s) => s.id === "ab-expiring-permits")?.value;
    expect(await expiring()).toBe(0);
    now = new Date("2030-12-02T10:00:00Z");
    expect(await expiring()).toBe(1);
  });

  it("hands out a list the overview may change", async () => {
    const m = fakeModule();
    const kept = createAccessBodySignals();
    const opts = { now: () => new Date("2030-12-15T10:00:00Z"), timeoutMs: 1000 };
    const first = await kept("DATA_USER", RESEARCHER, m.port, opts);
    first.splice(0, first.length);
    expect((await kept("DATA_USER", RESEARCHER, m.port, opts)).length).toBe(3);
  });
});
