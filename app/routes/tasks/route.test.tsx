import { renderToStaticMarkup } from "react-dom/server";
import type { DependencyList, EffectCallback } from "react";
import type { Form, useLoaderData, useRevalidator, useSubmit } from "@remix-run/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

// The page as the browser runs it, without a DOM: the server renderer skips effects, so `useEffect`
// records them and `commit` runs the ones whose dependencies changed, as React does after a render.
const effects = vi.hoisted(() => ({
  calls: [] as { effect: EffectCallback; deps?: DependencyList }[],
  mounted: [] as { deps?: DependencyList; cleanup?: (() => void) | void }[],
}));
const remix = vi.hoisted(() => ({
  revalidator: null as unknown as ReturnType<typeof useRevalidator>,
}));
vi.mock(import("react"), async (actual) => {
  const react = await actual();
  const useEffect = (effect: EffectCallback, deps?: DependencyList) => {
    effects.calls.push({ effect, deps });
  };
  return { ...react, useEffect, default: { ...react.default, useEffect } };
});
vi.mock(import("@remix-run/react"), async (actual) => ({
  ...(await actual()),
  useLoaderData: (() => loaded) as typeof useLoaderData,
  useRouteLoaderData: () => undefined,
  useRevalidator: () => remix.revalidator,
  useSubmit: (() => () => {}) as unknown as typeof useSubmit,
  Form: ((props: Record<string, unknown>) => <form {...props} />) as typeof Form,
}));
const { default: Tasks } = await import("./route");

const loaded = {
  tasks: [],
  total: 0,
  filters: { kind: "", state: "", participant: "" },
  facets: { states: [], participants: [] },
  summary: { running: 0, done: 0, failed: 0 },
  admin: false,
  error: null,
  at: 0,
};

function commit() {
  effects.calls.forEach(({ effect, deps }, i) => {
    const before = effects.mounted[i];
    const same = before?.deps && deps && deps.every((d, j) => Object.is(d, before.deps![j]));
    if (same) return;
    if (typeof before?.cleanup === "function") before.cleanup();
    effects.mounted[i] = { deps, cleanup: effect() };
  });
  effects.calls = [];
}

/** One render with a revalidator object of its own, as Remix hands out after every revalidation. */
function render(revalidate: () => void) {
  remix.revalidator = { state: "idle", revalidate } as ReturnType<typeof useRevalidator>;
  renderToStaticMarkup(<Tasks />);
  commit();
}

describe("/tasks refreshes on its own", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.stubGlobal("window", globalThis);
    vi.stubGlobal("document", { visibilityState: "visible" });
    effects.calls = [];
    effects.mounted = [];
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  it("keeps one timer across revalidations, so a refresh comes every 4 s and not 4 s after the last render", () => {
    const setInterval = vi.spyOn(globalThis, "setInterval");
    const clearInterval = vi.spyOn(globalThis, "clearInterval");
    const first = vi.fn();
    render(first);
    vi.advanceTimersByTime(3000);
    // a revalidation (or any render) in between hands the page a new revalidator object
    const second = vi.fn();
    render(second);
    vi.advanceTimersByTime(1000);
    expect(setInterval).toHaveBeenCalledTimes(1);
    expect(clearInterval).not.toHaveBeenCalled();
    // one refresh at 4 s (which render's revalidator it calls is beyond this harness: each server
    // render is a new instance, so the refs of two renders are not one)
    expect(first.mock.calls.length + second.mock.calls.length).toBe(1);
  });

  it("does not refresh a hidden page", () => {
    const revalidate = vi.fn();
    vi.stubGlobal("document", { visibilityState: "hidden" });
    render(revalidate);
    vi.advanceTimersByTime(8000);
    expect(revalidate).not.toHaveBeenCalled();
  });
});
