import { describe, expect, it } from "vitest";
import { isApiError } from "../http/errors";
import { allowedEvents, allowedNextStates, MACHINES, replay, transition, type Machine } from "./machines";

const all = Object.entries(MACHINES) as [string, Machine][];

function conflictOf(fn: () => unknown) {
  try {
    fn();
  } catch (e) {
    if (isApiError(e)) return e;
    throw e;
  }
  throw new Error("expected a 409");
}

describe("state machines", () => {
  it.each(all)("%s: every event leads from its source states to its target, and nowhere else", (_name, m) => {
    for (const state of m.states) {
      for (const [event, def] of Object.entries(m.events)) {
        if (def.from.includes(state)) {
          expect(transition(m, state, event)).toBe(def.to ?? state);
        } else {
          const e = conflictOf(() => transition(m, state, event));
          expect(e.status).toBe(409);
          expect(e.extra).toEqual({
            currentState: state,
            allowedNextStates: allowedNextStates(m, state),
            allowedEvents: allowedEvents(m, state),
          });
          expect(e.message).toContain(state);
        }
      }
    }
  });

  it.each(all)(
    "%s: terminal states allow nothing, every other state allows something, every state is reachable",
    (_name, m) => {
      for (const s of m.terminal) expect(allowedEvents(m, s)).toEqual([]);
      for (const s of m.states.filter((x) => !m.terminal.includes(x)))
        expect(allowedEvents(m, s).length).toBeGreaterThan(0);
      const reached = new Set([m.initial]);
      let grew = true;
      while (grew) {
        grew = false;
        for (const def of Object.values(m.events)) {
          if (def.to && def.from.some((f) => reached.has(f)) && !reached.has(def.to)) {
            reached.add(def.to);
            grew = true;
          }
        }
      }
      expect([...reached].sort()).toEqual([...m.states].sort());
    },
  );

  it("application (Art. 67–68): the paths of the issue", () => {
    const A = MACHINES.application;
    expect(replay(A, [])).toBe("RECEIVED");
    expect(replay(A, ["markComplete", "requestInformation", "informationProvided", "grant"])).toBe("GRANTED");
    expect(replay(A, ["markIncomplete", "supplement", "markComplete", "refuse"])).toBe("REFUSED");
    expect(replay(A, ["markComplete", "requestInformation", "informationWithdrawn", "withdraw"])).toBe(
      "WITHDRAWN",
    );
    expect(replay(A, ["markIncomplete", "refuse"])).toBe("REFUSED");
    // no decision while the applicant has an open information request; no second decision
    expect(conflictOf(() => replay(A, ["markComplete", "requestInformation", "grant"])).extra).toMatchObject({
      currentState: "INFORMATION_REQUESTED",
      allowedNextStates: ["UNDER_ASSESSMENT", "WITHDRAWN"],
    });
    expect(conflictOf(() => replay(A, ["markComplete", "grant", "refuse"])).extra).toMatchObject({
      currentState: "GRANTED",
      allowedNextStates: [],
    });
    expect(conflictOf(() => replay(A, ["grant"])).extra).toMatchObject({ currentState: "RECEIVED" });
  });

  it("permit, data request, information request, finding and result", () => {
    expect(replay(MACHINES.permit, ["revoke"])).toBe("REVOKED");
    expect(conflictOf(() => replay(MACHINES.permit, ["revoke", "revoke"])).extra).toMatchObject({
      currentState: "REVOKED",
      allowedNextStates: [],
    });
    expect(replay(MACHINES.permit, ["expire"])).toBe("EXPIRED");
    expect(replay(MACHINES.dataRequest, ["approve", "answer"])).toBe("ANSWERED");
    expect(replay(MACHINES.dataRequest, ["approve", "refuse"])).toBe("REFUSED");
    expect(conflictOf(() => replay(MACHINES.dataRequest, ["answer"])).extra).toMatchObject({
      currentState: "SUBMITTED",
      allowedNextStates: ["APPROVED", "REFUSED", "WITHDRAWN"],
    });
    expect(replay(MACHINES.informationRequest, ["answer"])).toBe("ANSWERED");
    expect(conflictOf(() => replay(MACHINES.informationRequest, ["withdraw", "answer"])).extra).toMatchObject(
      { currentState: "WITHDRAWN" },
    );
    expect(replay(MACHINES.finding, ["respond", "close"])).toBe("CLOSED");
    expect(replay(MACHINES.finding, ["close"])).toBe("CLOSED");
    expect(conflictOf(() => replay(MACHINES.finding, ["close", "respond"])).extra).toMatchObject({
      currentState: "CLOSED",
    });
    expect(replay(MACHINES.result, ["reject", "resubmit", "release", "publish"])).toBe("PUBLISHED");
    expect(conflictOf(() => replay(MACHINES.result, ["publish"])).extra).toMatchObject({
      currentState: "DECLARED",
      allowedNextStates: ["RELEASED", "REJECTED"],
    });
  });

  it("clock: extend keeps the state, stop ends it", () => {
    const C = MACHINES.clock;
    expect(replay(C, ["start", "pause", "extend"])).toBe("PAUSED");
    expect(replay(C, ["start", "extend", "pause", "resume", "stop"])).toBe("STOPPED");
    expect(conflictOf(() => replay(C, ["start", "resume"])).extra).toMatchObject({ currentState: "RUNNING" });
    expect(allowedEvents(C, "RUNNING", ["extend"])).toEqual(["pause", "stop"]);
  });
});
