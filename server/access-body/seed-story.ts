import { startOfBerlinDay } from "./calendar";
import { transition, type Machine } from "./machines";
import type { Actor, RecordKind, SeedStep, StoredRecord } from "./store";

/** The seed's story-telling helpers: actors, times of day and a record's history told event by event. */

/**
 * Where the seed's records are told: each is kept in order with its history and written afterwards,
 * all in one transaction of the store (seed.ts), which awaits nothing but its own writes.
 */
export interface SeedPlan {
  seed<T>(rec: StoredRecord<T>, steps: SeedStep[], at: Date): StoredRecord<T>;
}

const SEED = (role: string): Actor => ({ username: "seed", role });
export const USER = SEED("DATA_USER");
export const HDAB = SEED("HDAB_AUTHORITY");
export const HOLDER = SEED("DATA_HOLDER");

/** 09:00 (or the given minute of the day) in Berlin on a civil date */
export function at(date: string, minutes = 9 * 60): Date {
  return new Date(startOfBerlinDay(date).getTime() + minutes * 60_000);
}

export class Story<T> {
  steps: SeedStep[] = [];
  state: string;
  constructor(
    private machine: Machine,
    public id: string,
    createEvent: string,
    when: Date,
    actor: Actor,
    note?: string,
  ) {
    this.state = machine.initial;
    this.steps.push({
      at: when.toISOString(),
      actor,
      event: createEvent,
      fromState: null,
      toState: this.state,
      note,
    });
  }
  go(event: string, when: Date, actor: Actor, note?: string) {
    const from = this.state;
    this.state = transition(this.machine, from, event);
    this.steps.push({ at: when.toISOString(), actor, event, fromState: from, toState: this.state, note });
    return this;
  }
  /** an event that leaves the state as it is (clock events) */
  note(event: string, when: Date, actor: Actor, note?: string) {
    this.steps.push({
      at: when.toISOString(),
      actor,
      event,
      fromState: this.state,
      toState: this.state,
      note,
    });
    return this;
  }
  record(organisation: string, parentId: string | null, data: T): StoredRecord<T> {
    const created = this.steps[0].at;
    const updated = this.steps[this.steps.length - 1].at;
    return {
      id: this.id,
      kind: this.machine.name as RecordKind,
      state: this.state,
      organisation,
      parentId,
      createdAt: created,
      updatedAt: updated,
      data,
    };
  }
}
