/**
 * A small seeded pseudo-random generator (sfc32) with the helpers the synthetic data needs.
 * The same seed always yields the same sequence, on every platform: only 32-bit integer
 * arithmetic and Math.imul are used.
 */

const DAY_MS = 86_400_000;

/** mixes any number of 32-bit words into one well-spread 32-bit word (murmur3-style finaliser) */
function hashWords(...words: number[]): number {
  let h = 0x9e3779b9;
  for (const w of words) {
    h = Math.imul(h ^ (w >>> 0), 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
  }
  return h >>> 0;
}

function hex(word: number): string {
  return (word >>> 0).toString(16).padStart(8, "0");
}

export class Prng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  /** a generator for one stream; `words` name the stream (e.g. seed, purpose, index) */
  constructor(...words: number[]) {
    const stream = hashWords(...words);
    this.a = hashWords(stream, 1);
    this.b = hashWords(stream, 2);
    this.c = hashWords(stream, 3);
    this.d = hashWords(stream, 4) | 1;
    for (let i = 0; i < 12; i++) this.nextUint32();
  }

  nextUint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** uniform in [0, 1) */
  next(): number {
    return this.nextUint32() / 4_294_967_296;
  }

  /** uniform integer in [min, max], both inclusive */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("pick from an empty list");
    return items[Math.floor(this.next() * items.length)];
  }

  /** one item, each with probability proportional to its weight (weights <= 0 never picked) */
  weighted<T>(items: readonly T[], weight: (item: T) => number): T {
    let total = 0;
    for (const item of items) total += Math.max(0, weight(item));
    if (total <= 0) throw new Error("weighted pick with no positive weight");
    let r = this.next() * total;
    for (const item of items) {
      const w = Math.max(0, weight(item));
      if (r < w) return item;
      r -= w;
    }
    return items[items.length - 1];
  }

  /** up to `count` distinct items, weighted, without replacement */
  weightedSample<T>(items: readonly T[], count: number, weight: (item: T) => number): T[] {
    const pool = items.filter((item) => weight(item) > 0);
    const chosen: T[] = [];
    while (chosen.length < count && pool.length > 0) {
      const item = this.weighted(pool, weight);
      chosen.push(item);
      pool.splice(pool.indexOf(item), 1);
    }
    return chosen;
  }

  /** approximately normal (Irwin–Hall sum of four uniforms), clamped to [min, max] */
  normal(mean: number, sd: number, min = -Infinity, max = Infinity): number {
    const z = (this.next() + this.next() + this.next() + this.next() - 2) * Math.sqrt(3);
    return Math.min(max, Math.max(min, mean + z * sd));
  }

  /** a random RFC 4122 version-4 UUID drawn from this stream */
  uuid(): string {
    const w1 = this.nextUint32();
    const w2 = (this.nextUint32() & 0xffff0fff) | 0x00004000;
    const w3 = (this.nextUint32() & 0x3fffffff) | 0x80000000;
    const w4 = this.nextUint32();
    const s = hex(w1) + hex(w2) + hex(w3) + hex(w4);
    return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
  }
}

/** day number of a YYYY-MM-DD date (UTC) */
export function dayOf(isoDate: string): number {
  return Math.floor(Date.parse(`${isoDate}T00:00:00Z`) / DAY_MS);
}

const isoDates = new Map<number, string>();

/** YYYY-MM-DD of a day number */
export function isoDate(day: number): string {
  let text = isoDates.get(day);
  if (text === undefined) {
    text = new Date(day * DAY_MS).toISOString().slice(0, 10);
    isoDates.set(day, text);
  }
  return text;
}

const two = (n: number) => (n < 10 ? `0${n}` : String(n));

/** ISO date-time (UTC, minute precision) of a day number plus minutes after midnight */
export function isoDateTime(day: number, minuteOfDay: number): string {
  const extraDays = Math.floor(minuteOfDay / 1440);
  const minute = minuteOfDay - extraDays * 1440;
  return `${isoDate(day + extraDays)}T${two(Math.floor(minute / 60))}:${two(minute % 60)}:00Z`;
}
