import { afterEach, describe, expect, it, vi } from "vitest";
import type { GraphStore } from "../graph/store";
import { graphUnavailable } from "../http/errors";
import { createAccessBody } from "./index";
import { admin, regulator, setupWith } from "../../tests/support/access-body";

/**
 * A permit revocation commits in the relational store, then updates the marketplace in the graph.
 * When the graph cannot answer at that moment (Neo4j away, decision 0019), the committed revocation
 * is answered as done, not as 503. The graph store here is the real embedded one; only its answers
 * while "away" are the 503 the Neo4j adapter gives (Neo4j cannot be stopped on the build machines).
 */

function awayable(graph: GraphStore) {
  const state = { away: false };
  const refuse = <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    ((...args: A) => (state.away ? Promise.reject(graphUnavailable()) : call(...args))) as (
      ...args: A
    ) => Promise<R>;
  const store: GraphStore = {
    ...graph,
    getNode: refuse(graph.getNode.bind(graph)),
    mutate: refuse(graph.mutate.bind(graph)),
    findNodes: refuse(graph.findNodes.bind(graph)),
    relationships: refuse(graph.relationships.bind(graph)),
  };
  return { store, state };
}

afterEach(() => vi.restoreAllMocks());

describe("permit revocation while the graph is away", () => {
  it("answers the committed revocation, keeps its audit entry, and logs the marketplace update it could not make", async () => {
    let flaky: ReturnType<typeof awayable> | undefined;
    const { ab, graph, audit } = await setupWith((opts) => {
      flaky = awayable(opts.graph);
      return createAccessBody({ ...opts, graph: flaky.store });
    });
    // seeded while the graph answers
    const permit = (await ab.listPermits(admin)).find((p) => p.id === "MEDREG-DP-2025-0001")!;
    expect(permit.state).toBe("ACTIVE");
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);

    flaky!.state.away = true;
    const revoked = await ab.revokePermit(
      { permitId: permit.id, reason: "Breach of condition 1" },
      regulator,
    );
    expect(revoked.state).toBe("REVOKED");
    expect(logged).toHaveBeenCalled();
    const entries = await audit.list({ kind: "access-body", limit: 10_000 });
    expect(entries.some((e) => e.target === permit.id && e.action.includes("revoke"))).toBe(true);
    // the marketplace was not changed (the graph refused), and says so nowhere else
    expect((await graph.getNode("contract-0001"))!.properties.status).not.toBe("suspended");

    flaky!.state.away = false;
    expect((await ab.getPermit(permit.id, admin)).state).toBe("REVOKED");
  });
});
