/**
 * The bench's baseline: a bare `node:http` server (no framework, no session, no work) that answers
 * GET <path> with the exact bytes and headers recorded for that path. The bench records each route's
 * real answer here (PUT /__bench?path=…) and drives both with the same load, so the hub's figure can
 * be read against what this machine can do at all in the same run.
 *
 *   node --import tsx scripts/bench/baseline-server.ts   # prints "baseline listening on <port>"
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

interface Recorded {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

const answers = new Map<string, Recorded>();

const server = http.createServer((req, res) => {
  const url = req.url ?? "/";
  if (req.method === "PUT" && url.startsWith("/__bench?")) {
    const path = new URLSearchParams(url.slice("/__bench?".length)).get("path") ?? "/";
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const headers: Record<string, string> = {};
      for (const k of ["content-type", "content-encoding", "vary", "cache-control"]) {
        const v = req.headers[`x-answer-${k}`];
        if (typeof v === "string") headers[k] = v;
      }
      answers.set(path, {
        status: Number(req.headers["x-answer-status"] ?? 200),
        headers,
        body: Buffer.concat(chunks),
      });
      res.writeHead(204).end();
    });
    return;
  }
  const a = answers.get(url);
  if (!a) {
    res.writeHead(404, { "content-type": "text/plain" }).end("not recorded");
    return;
  }
  res.writeHead(a.status, { ...a.headers, "content-length": a.body.byteLength });
  res.end(a.body);
});
server.keepAliveTimeout = 5_000;
server.listen(0, "127.0.0.1", () => {
  console.log(`baseline listening on ${(server.address() as AddressInfo).port}`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
