/**
 * A stand-in for the optional language back end (NLQ_PROXY_URL): a real HTTP server on 127.0.0.1
 * that misbehaves on purpose. Its mode can change between requests:
 *
 * - "fail": HTTP 500
 * - "hang": never answers (the hub's time-out must fire)
 * - "garbage": 200 with a body that is not JSON
 * - "no-query": 200 JSON without a query
 * - "write": 200 with a Cypher query that writes (DETACH DELETE)
 * - "template": 200 with a read-only query of the shape of the hub's condition-count template
 * - "arbitrary": 200 with a read-only query of no template's shape (person-level rows)
 *
 * GET answers 200 (the hub's reachability probe). Every POST body is recorded.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

export type DoubleMode = "fail" | "hang" | "garbage" | "no-query" | "write" | "template" | "arbitrary";

export interface NlqBackendDouble {
  url: string;
  mode: DoubleMode;
  requests: { question: string; body: Record<string, unknown> }[];
  close(): Promise<void>;
}

export const WRITE_QUERY = "MATCH (p:Patient) DETACH DELETE p RETURN count(p) AS removed";
export const TEMPLATE_SHAPED_QUERY =
  "MATCH (:SnomedConcept {code: '195967001'})<-[:CODED_BY]-(dx:ConditionOccurrence)\nRETURN count(DISTINCT dx.personId) AS patients";
export const ARBITRARY_QUERY = "MATCH (p:Patient) RETURN p.name AS name, p.birthDate AS birthDate LIMIT 10";

export async function startNlqBackendDouble(mode: DoubleMode = "fail"): Promise<NlqBackendDouble> {
  const hanging = new Set<ServerResponse>();
  const state: NlqBackendDouble = {
    url: "",
    mode,
    requests: [],
    close: async () => undefined,
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== "POST") {
      res.writeHead(200, { "content-type": "application/json" }).end('{"service":"nlq double"}');
      return;
    }
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(raw);
      } catch {
        /* recorded as empty */
      }
      state.requests.push({ question: String(body.question ?? ""), body });
      const json = (status: number, value: unknown) =>
        res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
      switch (state.mode) {
        case "fail":
          return json(500, { error: "model overloaded" });
        case "hang":
          hanging.add(res);
          return;
        case "garbage":
          return res.writeHead(200, { "content-type": "text/html" }).end("<html>not json</html>");
        case "no-query":
          return json(200, { explanation: "I am not sure" });
        case "write":
          return json(200, { cypher: WRITE_QUERY, explanation: "removes the patients" });
        case "template":
          return json(200, { cypher: TEMPLATE_SHAPED_QUERY, explanation: "counts patients with asthma" });
        case "arbitrary":
          return json(200, { cypher: ARBITRARY_QUERY, explanation: "lists patients" });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  state.url = `http://127.0.0.1:${port}/nlq`;
  state.close = async () => {
    for (const r of hanging) r.destroy();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  };
  return state;
}
