import { ConfigError, loadConfig } from "./config";
import { startServer } from "./app";

/** Node entry: validate the environment, start the server, report readiness, stop cleanly. */
async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(e.message);
      process.exit(1);
    }
    throw e;
  }
  const server = await startServer(config, { progress: true, log: process.env.LOG_REQUESTS === "1" });
  const shown = config.publicUrl;
  console.log(`Health Dataspace Hub listening on ${server.url} (open ${shown})`);
  console.log(
    `  mode: ${config.appMode}; graph store: ${server.services.graph.kind}; identity provider: ${config.oidc ? config.oidc.issuer : `${shown}/idp (embedded, development)`}`,
  );
  // readiness signal for a parent process (the desktop shell's utility process)
  const ready = { type: "ready", url: server.url, port: server.port };
  process.send?.(ready);
  (process as unknown as { parentPort?: { postMessage(m: unknown): void } }).parentPort?.postMessage(ready);

  const stop = async (signal: string) => {
    console.log(`${signal}: stopping`);
    await server.close();
    process.exit(0);
  };
  process.once("SIGINT", () => void stop("SIGINT"));
  process.once("SIGTERM", () => void stop("SIGTERM"));
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
