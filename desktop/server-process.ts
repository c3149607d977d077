import path from "node:path";
import { SERVER_NODE_FLAGS } from "../server/config/node-flags";
import type { ForkServer, ServerChild } from "./electron-api";
import type { Mode } from "./settings";

/**
 * The desktop runs the one server build (build/server/index.js) in a utility process on 127.0.0.1
 * and a free port, and waits for its readiness message `{ type: "ready", url, port }` (server/index.ts
 * posts it through process.parentPort in a utility process, process.send under Node).
 */

export const READY_TIMEOUT_MS = 60_000;
export const STOP_TIMEOUT_MS = 5_000;

/** variables a server inherits from the desktop's own environment; nothing else leaks in */
const INHERITED = [
  "PATH",
  "HOME",
  "USERPROFILE",
  "LANG",
  "LC_ALL",
  "TZ",
  "TMPDIR",
  "TEMP",
  "TMP",
  "SystemRoot",
  "APPDATA",
  "LOCALAPPDATA",
];

export interface ServerPaths {
  /** folder holding build/ public/ fixtures/ (the app folder, unpacked) */
  appRoot: string;
  /** Electron's userData folder */
  userData: string;
}

/** where the server keeps its data in a mode (under the user-data folder) */
export function dataDirFor(mode: Mode, userData: string): string {
  return path.join(userData, mode === "local" ? "local-data" : "offline-data");
}

/**
 * The server's environment in each mode. The offline demo (and the stand-by of "connected",
 * which shows the hosted stack in the window and keeps the demo ready here) is static mode: no
 * network, no identity provider, fixtures only. Local is the live server with the embedded
 * defaults. NODE_ENV stays unset: development (the embedded identity provider refuses production)
 * without stack traces and server paths in error answers, which only NODE_ENV=development set gives.
 */
export function serverEnv(
  mode: Mode,
  port: number,
  paths: ServerPaths,
  inherit: Record<string, string | undefined> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of INHERITED) if (inherit[k]) env[k] = inherit[k]!;
  Object.assign(env, {
    HOST: "127.0.0.1",
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDirFor(mode, paths.userData),
    APP_MODE: mode === "local" ? "live" : "static",
  });
  return env;
}

export function serverModulePath(appRoot: string): string {
  return path.join(appRoot, "build", "server", "index.js");
}

export class ServerStartError extends Error {
  override name = "ServerStartError";
  constructor(
    message: string,
    readonly output: string[],
  ) {
    super(message);
  }
}

export interface RunningHubServer {
  url: string;
  port: number;
  mode: Mode;
  stop(): Promise<void>;
  /** the process ended (after stop(), or by itself) */
  onExit(listener: (code: number | null) => void): void;
}

interface ReadyMessage {
  type: "ready";
  url: string;
  port: number;
}

function isReady(m: unknown): m is ReadyMessage {
  const o = m as Partial<ReadyMessage> | null;
  return (
    !!o &&
    typeof o === "object" &&
    o.type === "ready" &&
    typeof o.url === "string" &&
    typeof o.port === "number"
  );
}

export interface StartDeps {
  fork: ForkServer;
  freePort: () => Promise<number>;
  setTimeout?: (fn: () => void, ms: number) => unknown;
  clearTimeout?: (handle: unknown) => void;
}

export interface StartOptions {
  mode: Mode;
  paths: ServerPaths;
  inheritEnv?: Record<string, string | undefined>;
  timeoutMs?: number;
  stopTimeoutMs?: number;
}

/**
 * starts the server and resolves once it reported ready; rejects when it exits first, or after the
 * time-out (killing it). A port taken between choosing it and binding it is retried once.
 */
export async function startHubServer(deps: StartDeps, opts: StartOptions): Promise<RunningHubServer> {
  try {
    return await startOnce(deps, opts);
  } catch (e) {
    if (e instanceof ServerStartError && e.output.some((l) => l.includes("EADDRINUSE")))
      return startOnce(deps, opts);
    throw e;
  }
}

async function startOnce(deps: StartDeps, opts: StartOptions): Promise<RunningHubServer> {
  const setT = deps.setTimeout ?? ((fn, ms) => setTimeout(fn, ms));
  const clearT = deps.clearTimeout ?? ((h) => clearTimeout(h as NodeJS.Timeout));
  const port = await deps.freePort();
  const env = serverEnv(opts.mode, port, opts.paths, opts.inheritEnv);
  const child: ServerChild = deps.fork(serverModulePath(opts.paths.appRoot), [], {
    env,
    cwd: opts.paths.appRoot,
    serviceName: `Health Dataspace Hub server (${opts.mode})`,
    execArgv: SERVER_NODE_FLAGS,
  });
  const output: string[] = [];
  child.onOutput((line) => {
    output.push(line);
    if (output.length > 40) output.shift();
  });

  let exited = false;
  let exitCode: number | null = null;
  const exitWaiters: (() => void)[] = [];
  child.onExit((code) => {
    exited = true;
    exitCode = code;
    for (const w of exitWaiters.splice(0)) w();
  });

  const stop = () =>
    new Promise<void>((resolve) => {
      if (exited) return resolve();
      const t = setT(() => resolve(), opts.stopTimeoutMs ?? STOP_TIMEOUT_MS);
      exitWaiters.push(() => {
        clearT(t);
        resolve();
      });
      child.kill();
    });

  const ready = await new Promise<ReadyMessage>((resolve, reject) => {
    let done = false;
    const finish = (fn: () => void) => {
      if (done) return;
      done = true;
      clearT(timer);
      fn();
    };
    const timeoutMs = opts.timeoutMs ?? READY_TIMEOUT_MS;
    const timer = setT(() => {
      finish(() => {
        void stop();
        reject(
          new ServerStartError(
            `The ${opts.mode} server did not report ready within ${Math.round(timeoutMs / 1000)} s`,
            [...output],
          ),
        );
      });
    }, timeoutMs);
    child.onMessage((m) => {
      if (isReady(m)) finish(() => resolve(m));
    });
    exitWaiters.push(() =>
      finish(() =>
        reject(
          new ServerStartError(
            `The ${opts.mode} server stopped before it was ready (exit code ${exitCode ?? "none"})`,
            [...output],
          ),
        ),
      ),
    );
    if (exited) exitWaiters.splice(0).forEach((w) => w());
  });

  return { url: ready.url, port: ready.port, mode: opts.mode, stop, onExit: (l) => child.onExit(l) };
}
