import { request, type Agent, type IncomingHttpHeaders } from "node:http";

/**
 * One request with node:http, sent as written: any method, the target exactly as given (fetch would
 * resolve `..` and re-encode it, and adds `Cache-Control: no-cache` to a conditional request), a body
 * of any size; the answer's status, headers and whole body as text.
 */
export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export function rawRequest(
  origin: string,
  target: string,
  opts: {
    method?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    agent?: Agent;
    signal?: AbortSignal;
  } = {},
): Promise<RawAnswer> {
  const url = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: target,
        method: opts.method ?? "GET",
        headers: opts.headers,
        agent: opts.agent,
        signal: opts.signal,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString("utf8"),
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(opts.body);
  });
}
