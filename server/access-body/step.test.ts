import { afterEach, describe, expect, it } from "vitest";
import { openTestStore, storeDialects, type TestStore } from "../../tests/support/relational";
import { createAuditLog } from "../audit/log";
import type { SessionUser } from "../auth/user";
import { forbidden, isApiError, type ApiError } from "../http/errors";
import { FINDING, PERMIT } from "./machines";
import { move, step, type StepSpec } from "./step";
import { createRecordStore, type StoredRecord } from "./store";

interface Note {
  text: string;
}

const regulator: SessionUser = {
  sub: "regulator",
  username: "regulator",
  name: "Regulator",
  email: "r@example.org",
  roles: ["HDAB_AUTHORITY"],
  organisation: "MedReg DE",
  participantDid: undefined,
};
const holder: SessionUser = {
  ...regulator,
  sub: "h",
  username: "holder",
  roles: ["DATA_HOLDER"],
  organisation: "Clinic",
};
const stranger: SessionUser = { ...holder, sub: "s", username: "stranger", organisation: "Elsewhere" };
const at = new Date("2026-03-02T10:00:00Z");

let opened: TestStore | undefined;
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

async function setupOn(dialect: TestStore["rel"]["dialect"]) {
  opened = await openTestStore(dialect);
  const audit = await createAuditLog(opened.rel);
  const store = await createRecordStore(opened.rel, audit);
  await store.tx((w) =>
    w.create<Note>(
      {
        id: "FND-1",
        kind: "finding",
        state: "OPEN",
        organisation: "Clinic",
        parentId: null,
        createdAt: at.toISOString(),
        updatedAt: at.toISOString(),
        data: { text: "opened" },
      },
      { event: "open", actor: { username: "regulator", role: "HDAB_AUTHORITY" }, at },
    ),
  );
  return { audit, store };
}

const spec = (over: Partial<StepSpec<Note>> = {}): StepSpec<Note> => ({
  id: "FND-1",
  machine: FINDING,
  event: "respond",
  user: holder,
  own: true,
  at,
  data: (rec) => ({ text: `${rec.data.text}, answered` }),
  note: "the answer",
  ...over,
});

async function errorOf(fn: () => Promise<unknown>): Promise<ApiError> {
  try {
    await fn();
  } catch (e) {
    if (isApiError(e)) return e;
    throw e;
  }
  throw new Error("expected an ApiError");
}

describe.each(storeDialects())("step: the generic transition of one record on %s", (dialect) => {
  const setup = () => setupOn(dialect);
  it("loads, checks, writes the new state and fields with one history entry and one audit entry", async () => {
    const { store, audit } = await setup();
    const before = await audit.count();
    const done = await step(store, spec());
    expect(done.state).toBe("RESPONDED");
    expect(await store.get<Note>("FND-1")).toMatchObject({
      state: "RESPONDED",
      data: { text: "opened, answered" },
    });
    const history = await store.history("FND-1");
    expect(history.map((h) => [h.event, h.fromState, h.toState, h.actor, h.note])).toEqual([
      ["open", null, "OPEN", "regulator (HDAB_AUTHORITY)", null],
      ["respond", "OPEN", "RESPONDED", "holder (DATA_HOLDER)", "the answer"],
    ]);
    expect(await audit.count()).toBe(before + 1);
    const entry = (await audit.list({ action: "finding.respond" }))[0];
    expect(entry).toMatchObject({ actor: "holder", target: "FND-1", kind: "access-body" });
    expect(history[1].auditId).toBe(entry.id);
  });

  it("answers 400 without an id and 404 for an unknown id or a record of another kind", async () => {
    const { store } = await setup();
    expect((await errorOf(() => step(store, spec({ id: "" })))).status).toBe(400);
    const unknown = await errorOf(() => step(store, spec({ id: "FND-9" })));
    expect([unknown.status, unknown.message]).toEqual([404, "Finding FND-9 not found"]);
    const wrongKind = await errorOf(() => step(store, spec({ machine: PERMIT })));
    expect([wrongKind.status, wrongKind.message]).toEqual([404, "Permit FND-1 not found"]);
  });

  it("checks role, then ownership, then the guard, before the state; each refusal changes nothing", async () => {
    const { store, audit } = await setup();
    const before = await audit.count();
    const role = await errorOf(() =>
      step(store, spec({ user: stranger, role: { role: "HDAB_AUTHORITY", what: "close a finding" } })),
    );
    expect([role.status, role.message]).toEqual([403, "Only HDAB_AUTHORITY may close a finding"]);
    const own = await errorOf(() => step(store, spec({ user: stranger })));
    // another organisation's record: the 404 of an unknown id (decision 0094)
    expect([own.status, own.message]).toEqual([404, "Finding FND-1 not found"]);
    const guarded = await errorOf(() =>
      step(
        store,
        spec({
          guard: (rec) => {
            throw forbidden(`${rec.id} is addressed to someone else`);
          },
        }),
      ),
    );
    expect([guarded.status, guarded.message]).toEqual([403, "FND-1 is addressed to someone else"]);
    expect((await store.get("FND-1"))?.state).toBe("OPEN");
    expect(await store.history("FND-1")).toHaveLength(1);
    expect(await audit.count()).toBe(before);
    // an overseer may act on any organisation's record
    expect((await step(store, spec({ user: regulator, event: "close" }))).state).toBe("CLOSED");
  });

  it("answers 409 with the allowed events for an illegal transition, and writes nothing", async () => {
    const { store, audit } = await setup();
    await step(store, spec({ user: regulator, event: "close" }));
    const count = await audit.count();
    const e = await errorOf(() => step(store, spec()));
    expect(e.status).toBe(409);
    expect(e.extra).toEqual({ currentState: "CLOSED", allowedNextStates: [], allowedEvents: [] });
    expect(await store.history("FND-1")).toHaveLength(2);
    expect(await audit.count()).toBe(count);
  });

  it("rolls the whole transaction back when a later write in it fails", async () => {
    const { store, audit } = await setup();
    const count = await audit.count();
    const holderActor = { username: "holder", role: "DATA_HOLDER" };
    await expect(
      store.tx(async (w) => {
        const rec = (await w.get<Note>("FND-1")) as StoredRecord<Note>;
        await move(w, FINDING, rec, "respond", { text: "x" }, holderActor, at);
        await move(w, FINDING, rec, "respond", { text: "y" }, holderActor, at);
      }),
    ).rejects.toThrow();
    expect(await store.get<Note>("FND-1")).toMatchObject({ state: "OPEN", data: { text: "opened" } });
    expect(await store.history("FND-1")).toHaveLength(1);
    expect(await audit.count()).toBe(count);
  });
});
