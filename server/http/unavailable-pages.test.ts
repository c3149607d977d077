import type { ServerBuild } from "@remix-run/node";
import { describe, expect, it } from "vitest";
import { ApiError, badGateway, notFound } from "./errors";
import { withUnavailablePages } from "./unavailable-pages";

/** what a page's loader throwing `thrown` makes of it: the Response thrown to Remix, or the error itself */
async function thrownBy(thrown: unknown): Promise<unknown> {
  const build = {
    routes: { page: { id: "page", module: { loader: () => Promise.reject(thrown) } } },
  } as unknown as ServerBuild;
  const loader = withUnavailablePages(build).routes.page!.module.loader as () => Promise<unknown>;
  return loader().then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe("a page's thrown ApiError", () => {
  it("answers an upstream failure 502 with its message and detail", async () => {
    const res = (await thrownBy(
      badGateway("Failed to fetch policy definitions", "connector is unreachable"),
    )) as Response;
    expect(res).toBeInstanceOf(Response);
    expect([res.status, res.statusText]).toEqual([502, "Bad Gateway"]);
    expect(await res.text()).toBe("Failed to fetch policy definitions: connector is unreachable");
  });

  it("answers a 4xx as itself, a 503 with its Retry-After", async () => {
    const missing = await thrownBy(notFound("No such participant"));
    expect(missing instanceof Response && missing.status).toBe(404);
    const away = (await thrownBy(
      new ApiError(503, "away", undefined, undefined, { "Retry-After": "5" }),
    )) as Response;
    expect([away.status, away.headers.get("retry-after")]).toEqual([503, "5"]);
  });

  it("leaves a bug, an ApiError 500 and a thrown Response (a require* guard's) as they are", async () => {
    const bug = new TypeError("x is undefined");
    expect(await thrownBy(bug)).toBe(bug);
    const internal = new ApiError(500, "Internal server error");
    expect(await thrownBy(internal)).toBe(internal);
    const guard = new Response(null, { status: 302, headers: { Location: "/auth/signin" } });
    expect(await thrownBy(guard)).toBe(guard);
  });
});
