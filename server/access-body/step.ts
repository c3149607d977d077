import type { SessionUser } from "../auth/user";
import { badRequest, notFound } from "../http/errors";
import { actorOf, assertRole, isOverseer } from "./actors";
import { berlinDate } from "./calendar";
import { transition, type Machine } from "./machines";
import type { Actor, RecordKind, RecordStore, RecordWriter, StoredRecord } from "./store";

/**
 * The one way an access-body record changes state. `move` is the write inside an open transaction
 * (re-read → check the machine → write the record with its history entry and audit entry, whose
 * action is `<kind>.<event>`); `step` is a whole single-record transition: check role → load → check
 * ownership → in one transaction, check the state and write. Transitions that change two records
 * at once (an application with its information request or permit) call `move` twice in one `tx`.
 */

const KIND_LABEL: Record<RecordKind, string> = {
  application: "Application",
  dataRequest: "Data request",
  permit: "Permit",
  informationRequest: "Information request",
  finding: "Finding",
  result: "Result",
};

/** the 404 of an id no record of `kind` has, and of another organisation's record (assertVisible) */
export const unknownRecord = (kind: RecordKind, id: string) =>
  notFound(`${KIND_LABEL[kind]} ${id} not found`);

/** one record of a kind: 400 without an id, 404 when unknown or of another kind */
export async function loadRecord<T>(
  store: Pick<RecordStore, "get">,
  kind: RecordKind,
  id: string | undefined | null,
): Promise<StoredRecord<T>> {
  if (!id) throw badRequest("id is required");
  const rec = await store.get<T>(id);
  if (!rec || rec.kind !== kind) throw unknownRecord(kind, id);
  return rec;
}

/**
 * A read or a write of one record by id: another organisation's record answers the same 404 as an
 * unknown id (an overseer sees and acts on every organisation's), so that a caller learns nothing of
 * other organisations' records, whether it reads or writes (decision 0094), and the pages show their
 * "not found" page rather than failing.
 */
export function assertVisible(user: SessionUser, rec: StoredRecord<unknown>): void {
  if (!isOverseer(user) && rec.organisation !== user.organisation) throw unknownRecord(rec.kind, rec.id);
}

/** who did something and when (an answer, a response or a closure of a record ends with it) */
export function signed(at: Date, user: Pick<Actor, "username">) {
  return { at: at.toISOString(), date: berlinDate(at), by: user.username };
}

/** a record's decision as it is kept in its data (outcome, when, the reasons and who) */
export function decided<O extends string>(
  outcome: O,
  reasons: string | null,
  at: Date,
  user: Pick<Actor, "username">,
) {
  return { outcome, at: at.toISOString(), date: berlinDate(at), reasons, by: user.username };
}

/** a transition of one record inside an open transaction (409 when the machine does not allow it) */
export async function move<T>(
  w: RecordWriter,
  m: Machine,
  rec: StoredRecord<T>,
  event: string,
  data: T,
  actor: Actor,
  at: Date,
  note?: string,
): Promise<StoredRecord<T>> {
  const current = await w.get<T>(rec.id);
  if (!current) throw notFound(`${rec.id} not found`);
  const state = transition(m, current.state, event);
  return w.update({ ...current, state, data }, { event, fromState: current.state, actor, at, note });
}

/** `move` by `user` at `at`, with its history note, the new fields last */
export function moveAs<T>(
  w: RecordWriter,
  user: SessionUser,
  at: Date,
  m: Machine,
  rec: StoredRecord<T>,
  event: string,
  note: string | undefined,
  data: T,
): Promise<StoredRecord<T>> {
  return move(w, m, rec, event, data, actorOf(user), at, note);
}

export interface StepSpec<T> {
  id: string | undefined | null;
  /** the record's machine; its name is the record's kind */
  machine: Machine;
  /** the machine's event; also the audit action `<kind>.<event>` */
  event: string;
  user: SessionUser;
  /** 403 unless the user holds this role */
  role?: { role: string; what: string };
  /** another organisation's record answers as an unknown id (404) unless the user oversees */
  own?: boolean;
  /** further checks on the loaded record (they throw) */
  guard?: (rec: StoredRecord<T>) => void;
  at: Date;
  /** the record's new fields, from the loaded record */
  data: (rec: StoredRecord<T>) => T;
  note?: string;
}

/**
 * check role → load → check ownership → (one transaction) check state → write record, history, audit.
 * The role first: a caller without it is refused alike for every id, known, unknown or another's.
 */
export async function step<T>(store: RecordStore, spec: StepSpec<T>): Promise<StoredRecord<T>> {
  if (spec.role) assertRole(spec.user, spec.role.role, spec.role.what);
  const rec = await loadRecord<T>(store, spec.machine.name as RecordKind, spec.id);
  if (spec.own) assertVisible(spec.user, rec);
  spec.guard?.(rec);
  return store.tx(async (w) =>
    move(w, spec.machine, rec, spec.event, spec.data(rec), actorOf(spec.user), spec.at, spec.note),
  );
}
