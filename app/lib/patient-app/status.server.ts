import { isApiError } from "../../../server/http/errors";

/** A resource route's JSON answer; ApiErrors keep their status and message, anything else is rethrown. */
export function jsonOrError(run: () => Promise<{ body: unknown; setCookie?: string[] }>): Promise<Response> {
  return run().then(
    ({ body, setCookie }) => {
      const headers = new Headers({ "Cache-Control": "no-store" });
      for (const c of setCookie ?? []) headers.append("Set-Cookie", c);
      return Response.json(body, { headers });
    },
    (e: unknown) => {
      if (isApiError(e))
        return Response.json(
          { error: e.message },
          { status: e.status, headers: { "Cache-Control": "no-store" } },
        );
      throw e;
    },
  );
}
