import { startOfBerlinDay } from "./calendar";
import { transition, type Machine } from "./machines";
import type { Actor, RecordKind, SeedStep, StoredRecord } from "./store";

/** The seed's story-telling helpers: actors, times of day and a record's history told event by event. */

/**
 * Where the seed's records are told: each is kept in order with its history and written afterwards,
 * all in one transaction of the store (seed.ts), which awaits nothing but its own writes.
 */
export interface SeedPlan {
  /** the record `story` tells, of `organisation`, with its history */
  seed<T>(story: Story<T>, organisation: string, parentId: string | null, data: T): StoredRecord<T>;
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
    this.push(createEvent, when, actor, null, note);
  }
  private push(event: string, when: Date, actor: Actor, fromState: string | null, note?: string) {
    this.steps.push({ at: when.toISOString(), actor, event, fromState, toState: this.state, note });
    return this;
  }
  go(event: string, when: Date, actor: Actor, note?: string) {
    const from = this.state;
    this.state = transition(this.machine, from, event);
    return this.push(event, when, actor, from, note);
  }
  /** an event that leaves the state as it is (clock events) */
  note(event: string, when: Date, actor: Actor, note?: string) {
    return this.push(event, when, actor, this.state, note);
  }
  record(organisation: string, parentId: string | null, data: T): StoredRecord<T> {
    return {
      id: this.id,
      kind: this.machine.name as RecordKind,
      state: this.state,
      organisation,
      parentId,
      createdAt: this.steps[0].at,
      updatedAt: this.steps[this.steps.length - 1].at,
      data,
    };
  }
}
