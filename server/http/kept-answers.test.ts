import { describe, expect, it } from "vitest";
import { bodyAt, timedText } from "./kept-answers";

describe("bodyAt", () => {
  it("is the answer's JSON at the time asked, and one body per millisecond", () => {
    const answer = { title: "Ä report", generatedAt: "x", items: [1, 2] };
    const t = timedText(answer);
    const a = new Date("2026-11-28T08:00:00.123Z");
    const first = bodyAt(t, a);
    expect(first.toString()).toBe(JSON.stringify({ ...answer, generatedAt: a.toISOString() }));
    expect(bodyAt(t, new Date(a.getTime()))).toBe(first);
    const b = new Date(a.getTime() + 1);
    expect(bodyAt(t, b).toString()).toBe(JSON.stringify({ ...answer, generatedAt: b.toISOString() }));
    expect(first.toString()).toBe(JSON.stringify({ ...answer, generatedAt: a.toISOString() }));
  });
});
