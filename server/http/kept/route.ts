import type { SessionUser } from "../../auth/user";
import { EncodedBody, heldResponse, plainHeadersOf } from "../node-adapter";
import { callerKey, type CallerClass } from "./callers";
import { createKept } from "./kept";

/** The version counters a route's answer may read; services.ts says where each is read. */
export type VersionName =
  /** the graph store's `version()`: every write to the graph */
  | "graph"
  /** the access body's records (`readyVersion()`): every write to them, here or on another instance */
  | "records"
  /** the audit log's `version()`: every append and purge */
  | "audit"
  /** the Berlin and the UTC date: for answers that count days */
  | "day";

export type Versions = Record<VersionName, () => string | number | Promise<string | number>>;

/**
 * A route's kept answer, declared on its entry of the route table (`keep`): what the answer depends on
 * besides the request's path parameters and query, which are always part of the key.
 */
export interface KeepSpec {
  /** who is shown the same answer (required: no kept answer can leave the caller out) */
  caller: CallerClass;
  /** the version counters of everything the answer reads */
  versions: readonly VersionName[];
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: EncodedBody;
}

/** an answer that is not kept (not a 200, or sets a cookie) */
class NotKept extends Error {
  constructor(readonly answer: Answer) {
    super("not kept");
  }
}

/**
 * The dispatcher's keeper of route answers (server/http/api-handler.ts): for a GET route that
 * declares `keep`, the answer is looked up by route, caller class, version counters, path parameters
 * and query; built by the route's handler only when missing (concurrent first callers share one
 * build). Only a 200 is kept; any other answer, and a handler's error, goes to the callers of that
 * build and is never kept. A kept answer is sent as it was built, from bytes encoded and gzipped once:
 * a time it states (`generatedAt`) is the time it was built, which the versions in its key bound (a
 * route whose answer counts days reads the `day` version).
 */
export function createRouteKeeper(versions: Versions) {
  const byRoute = new Map<string, ReturnType<typeof createKept<Answer>>>();
  return async function keptAnswer(
    route: string,
    spec: KeepSpec,
    request: { user: SessionUser | null; params: Record<string, string>; url: string },
    handle: () => Promise<Response>,
  ): Promise<Response> {
    let kept = byRoute.get(route);
    if (!kept) byRoute.set(route, (kept = createKept<Answer>({ max: 64 })));
    const q = request.url.indexOf("?");
    const key = {
      caller: callerKey(spec.caller, request.user),
      versions: await Promise.all(spec.versions.map((v) => versions[v]())),
      args: [request.params, q < 0 ? "" : request.url.slice(q)],
    };
    try {
      return respond(
        await kept(key, async () => {
          const answer = await snapshot(await handle());
          if (answer.status !== 200 || "set-cookie" in answer.headers) throw new NotKept(answer);
          return answer;
        }),
      );
    } catch (e) {
      if (e instanceof NotKept) return respond(e.answer);
      throw e;
    }
  };
}

async function snapshot(response: Response): Promise<Answer> {
  return {
    status: response.status,
    headers: plainHeadersOf(response.headers),
    body: new EncodedBody(Buffer.from(await response.arrayBuffer())),
  };
}

function respond(answer: Answer): Response {
  return heldResponse(answer.body, { status: answer.status, headers: { ...answer.headers } });
}
