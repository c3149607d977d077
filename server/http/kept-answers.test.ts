import { describe, expect, it } from "vitest";
import { bodyAt, timedText } from "./kept-answers";

describe("bodyAt", () => {
  it("is the answer's JSON at the time asked, the time field in its place, unchanged by later edits of the answer", () => {
    const answer = { title: "Ä report", generatedAt: "x", items: [1, 2] };
    const t = timedText(answer);
    const a = new Date("2026-11-28T08:00:00.123Z");
    expect(bodyAt(t, a).toString()).toBe(JSON.stringify({ ...answer, generatedAt: a.toISOString() }));
    const b = new Date(a.getTime() + 1);
    answer.items.push(3);
    expect(bodyAt(t, b).toString()).toBe(
      JSON.stringify({ title: "Ä report", generatedAt: b.toISOString(), items: [1, 2] }),
    );
    const scoped = { computedAt: "x", k: 5 };
    const scope = timedText(scoped, "computedAt");
    expect(bodyAt(scope, a).toString()).toBe(`{"computedAt":"${a.toISOString()}","k":5}`);
  });
});
