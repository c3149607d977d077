import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { SERVER_NODE_FLAGS } from "../../server/config/node-flags";

/**
 * The built server (`build/server/index.js`, as `npm start` runs it) as a child process on 127.0.0.1,
 * started with the server's Node flags, resolved once it prints "listening on". For tests that kill it (kill -9, two instances) and for the
 * bench; in-process servers use `startTestServer` (./server.ts).
 */
export async function spawnBuiltServer(opts: {
  port: number;
  dataDir: string;
  patients?: number;
  env?: Record<string, string>;
  nodeArgs?: string[];
  /** "inherit" shows the server's errors (the bench); "pipe" keeps them for the failure message */
  stderr?: "pipe" | "inherit";
  timeoutMs?: number;
}): Promise<{ url: string; child: ChildProcess }> {
  const url = `http://127.0.0.1:${opts.port}`;
  const child = spawn(
    process.execPath,
    [
      ...SERVER_NODE_FLAGS,
      ...(opts.nodeArgs ?? []),
      path.join(process.env.HUB_BUILD_DIR ?? "build", "server", "index.js"),
    ],
    {
      env: {
        ...process.env,
        PORT: String(opts.port),
        HOST: "127.0.0.1",
        PUBLIC_URL: url,
        DATA_DIR: opts.dataDir,
        SEED_PATIENTS: String(opts.patients ?? 20),
        // the embedded provider (tests and the bench sign in through it) refuses NODE_ENV=production
        NODE_ENV: "test",
        ...opts.env,
      },
      stdio: ["ignore", "pipe", opts.stderr ?? "pipe"],
    },
  );
  await new Promise<void>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`server did not start in ${opts.timeoutMs ?? 120_000} ms: ${out.slice(-500)}`));
    }, opts.timeoutMs ?? 120_000);
    const done = (f: () => void) => {
      clearTimeout(timer);
      f();
    };
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("listening on")) done(resolve);
    });
    child.stderr?.on("data", (d: Buffer) => (out += d.toString()));
    child.once("exit", (code) =>
      done(() => reject(new Error(`server exited with ${code}: ${out.slice(-500)}`))),
    );
  });
  return { url, child };
}
