/**
 * The ids that some bench paths name (`{negotiation}`, `{pairing}`, …): looked up on the running server
 * once per population size, through its own API, as a client would find them. Starting a pairing and a
 * wallet sign-in are writes; they happen before any route is measured.
 */

export type BenchIds = Record<string, string>;

const PLACEHOLDER = /\{(\w+)\}/g;

/** the placeholders a path names */
export const placeholdersOf = (path: string) => [...path.matchAll(PLACEHOLDER)].map((m) => m[1]);

/** the path with its placeholders filled in (encoded as path or query parts) */
export function fillPath(path: string, ids: BenchIds): string {
  return path.replace(PLACEHOLDER, (_, name: string) => {
    const v = ids[name];
    if (v === undefined) throw new Error(`bench: no id found for {${name}} in ${path}`);
    return encodeURIComponent(v);
  });
}

type Ask = (persona: string, path: string, init?: { method: string; body: string }) => Promise<unknown>;

const first = (list: unknown, what: string): Record<string, unknown> => {
  if (!Array.isArray(list) || !list.length) throw new Error(`bench: no ${what} to measure`);
  return list[0] as Record<string, unknown>;
};

/** finds the ids the paths name; `ask` calls the server's API as a signed-in persona */
export async function findIds(names: ReadonlySet<string>, ask: Ask): Promise<BenchIds> {
  const ids: BenchIds = {};
  const want = (n: string) => names.has(n);
  if (want("negotiation"))
    ids.negotiation = String(
      first(await ask("researcher", "/api/negotiations?participantId=pharmaco"), "negotiation")["@id"],
    );
  if (want("transfer"))
    ids.transfer = String(
      first(await ask("researcher", "/api/transfers?participantId=pharmaco"), "transfer")["@id"],
    );
  if (want("participant") || want("providerDid")) {
    const p = first(await ask("admin", "/api/participants"), "participant");
    ids.participant = String(p["@id"]);
    ids.providerDid = String(p.identity);
  }
  if (want("component"))
    ids.component = String(first(await ask("admin", "/api/admin/components"), "component").name);
  if (want("dataset")) ids.dataset = String(first(await ask("researcher", "/api/catalog"), "dataset").id);
  if (want("pairing")) {
    const started = (await ask("patient1", "/api/patient/app-pairing", { method: "POST", body: "{}" })) as {
      pairingId: string;
    };
    ids.pairing = started.pairingId;
  }
  if (want("eudiSid")) {
    const started = (await ask("researcher", "/api/auth/eudi/start", {
      method: "POST",
      body: JSON.stringify({ returnTo: "/" }),
    })) as { sid: string };
    ids.eudiSid = started.sid;
  }
  const missing = [...names].filter((n) => ids[n] === undefined);
  if (missing.length) throw new Error(`bench: no way to find ${missing.map((n) => `{${n}}`).join(", ")}`);
  return ids;
}

/** one API call for the ids the bench's paths name (scripts/bench/ids.ts): JSON in, JSON out */
export async function askApi(
  base: string,
  path: string,
  init: { method?: string; body?: string; cookie: string },
): Promise<unknown> {
  const res = await fetch(base + path, {
    method: init.method ?? "GET",
    body: init.body,
    // a state-changing call from the hub's own origin, as its pages make it
    headers: {
      cookie: init.cookie,
      accept: "application/json",
      "content-type": "application/json",
      origin: base,
    },
  });
  if (!res.ok)
    throw new Error(`bench: ${init.method ?? "GET"} ${path} answered ${res.status}: ${await res.text()}`);
  return res.json();
}
