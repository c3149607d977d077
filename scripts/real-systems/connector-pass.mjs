// The connector pass: two real Eclipse Dataspace Components (EDC) connectors, a provider and a consumer,
// each one JVM (control plane and data plane in one runtime, in-memory stores, mock identity) assembled
// from Maven Central at EDC_VERSION, on free ports of 127.0.0.1; the tests of tests/connector/ run
// against them (docs/decisions/0048-real-edc-connector.md says why this version and these modules).
import { generateKeyPairSync } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { findJava, freePort, mavenClasspath, tempDir, tiedProcess } from "./jvm.mjs";

export const EDC_VERSION = "0.15.1";
const EDC = "org.eclipse.edc";
// Maven Central lacks two of 0.15.1's modules: edr-cache-api (the last one published is 0.14.0, taken
// alone, without its own dependencies) and org.eclipse.jetty.websocket:jetty-websocket, a POM that
// EDC's Gradle metadata names as a jar
const MISSING = [
  { groupId: EDC, artifactId: "edr-cache-api" },
  { groupId: "org.eclipse.jetty.websocket", artifactId: "jetty-websocket" },
];
export const EDC_MODULES = [
  ...["controlplane-base-bom", "dataplane-base-bom", "dsp-2025", "iam-mock"].map((artifactId) => ({
    groupId: EDC,
    artifactId,
    version: EDC_VERSION,
    exclusions: MISSING,
  })),
  {
    groupId: EDC,
    artifactId: "edr-cache-api",
    version: "0.14.0",
    exclusions: [{ groupId: "*", artifactId: "*" }],
  },
  // the data plane's public HTTP API, which serves a pull (HttpData-PULL) and registers the endpoint its
  // EDR names: EDC deprecated it (0.11) and stopped publishing it after 0.13.0, leaving a deployment to bring
  // its own; 0.13.0's jar, taken alone, loads on 0.15.1 and serves pulls (docs/decisions/0109)
  {
    groupId: EDC,
    artifactId: "data-plane-public-api-v2",
    version: "0.13.0",
    exclusions: [{ groupId: "*", artifactId: "*" }],
  },
];

const MAIN = "org.eclipse.edc.boot.system.runtime.BaseRuntime";
const CONFIG = path.resolve("tests/connector/connector.properties");
const API_KEY_HEADER = "x-api-key";

/** a .properties value: one line, backslashes and line breaks escaped */
const prop = (v) => String(v).replace(/\\/g, "\\\\").replace(/\n/g, "\\n");

/**
 * One EDC runtime for participant `id`: its configuration is tests/connector/connector.properties plus
 * its id, its ports, its management API key and the data plane's token keys (made fresh here).
 */
export async function startConnector({ id, classpath, java, log, dir, extra = {} }) {
  const ports = {
    default: await freePort(),
    management: await freePort(),
    protocol: await freePort(),
    control: await freePort(),
    public: await freePort(),
  };
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const apiKey = `${id}-${Math.random().toString(36).slice(2)}`;
  const protocolUrl = `http://127.0.0.1:${ports.protocol}/protocol`;
  const own = {
    "edc.participant.id": id,
    "web.http.port": ports.default,
    "web.http.management.port": ports.management,
    "web.http.protocol.port": ports.protocol,
    "web.http.control.port": ports.control,
    "web.http.public.port": ports.public,
    "edc.dsp.callback.address": protocolUrl,
    "edc.control.endpoint": `http://127.0.0.1:${ports.control}/control`,
    "edc.dataplane.api.public.baseurl": `http://127.0.0.1:${ports.public}/public`,
    "edc.dpf.selector.url": `http://127.0.0.1:${ports.control}/control/v1/dataplanes`,
    "web.http.management.auth.key": apiKey,
    "edc.transfer.proxy.token.signer.privatekey.alias": "private-key",
    "edc.transfer.proxy.token.verifier.publickey.alias": "public-key",
    "private-key": privateKey.export({ type: "pkcs8", format: "pem" }),
    "edc.iam.publickeys.dataplane.id": "public-key",
    "edc.iam.publickeys.dataplane.value": publicKey.export({ type: "spki", format: "pem" }),
    ...extra,
  };
  const file = path.join(dir, `${id}.properties`);
  writeFileSync(
    file,
    `${readFileSync(CONFIG, "utf8")}\n# ${id}\n${Object.entries(own)
      .map(([k, v]) => `${k}=${prop(v)}`)
      .join("\n")}\n`,
  );
  const managementUrl = `http://127.0.0.1:${ports.management}/management`;
  const proc = await tiedProcess({
    name: `EDC ${EDC_VERSION} (${id})`,
    command: java.java,
    args: ["-Xmx320m", "-XX:+UseSerialGC", `-Dedc.fs.config=${file}`, "-cp", classpath.join(":"), MAIN],
    cwd: dir,
    logFile: path.join(dir, `${id}.log`),
    // ready when the management API answers with the key (the protocol and public ports start with it)
    ready: async () => {
      const r = await fetch(`${managementUrl}/v4beta/assets/request`, {
        method: "POST",
        headers: { "content-type": "application/json", [API_KEY_HEADER]: apiKey },
        body: JSON.stringify({
          "@context": ["https://w3id.org/edc/connector/management/v2"],
          "@type": "QuerySpec",
        }),
      });
      return r.status === 200;
    },
    log,
  });
  return {
    id,
    managementUrl,
    protocolUrl,
    publicUrl: `http://127.0.0.1:${ports.public}/public`,
    apiKey,
    log: path.join(dir, `${id}.log`),
    ...proc,
  };
}

/** fetches the modules once, starts the provider and the consumer (one after the other: 2 cores) */
export async function startDataspace({ log = () => {} } = {}) {
  const java = findJava([17, 21, 25], { log });
  const t0 = Date.now();
  const classpath = mavenClasspath(`edc-${EDC_VERSION}`, EDC_MODULES, { log, java });
  log(`EDC ${EDC_VERSION}: ${classpath.length} jars ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const dir = tempDir("edc");
  const provider = await startConnector({
    id: "did:web:provider.example",
    classpath,
    java,
    log,
    dir,
    // the provider's transfers turn at EDC's default 1 s, as its negotiations do (connector.properties): at
    // 50 ms its TransferStartMessage could reach the consumer before the consumer had recorded its request
    // as sent, and the consumer refused it (409 "transfer cannot be started"), ending the transfer
    // TERMINATED (seen with two test files at once on the shared 2 cores)
    extra: { "edc.transfer.state-machine.iteration-wait-millis": 1000 },
  });
  let consumer;
  try {
    // the consumer is PharmaCo's connector (the researcher's organisation): a runtime is one participant,
    // and only its own organisation's members act in it through the hub
    consumer = await startConnector({ id: "did:web:pharmaco.de:research", classpath, java, log, dir });
  } catch (e) {
    await provider.stop();
    throw e;
  }
  return {
    provider,
    consumer,
    dir,
    // the folder (configurations with the keys, logs) goes once both have stopped; a runtime that fails
    // to start leaves it, for its log
    stop: async () => {
      await Promise.all([consumer.stop(), provider.stop()]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function connectorPass() {
  return {
    name: "connector",
    title: `EDC connector ${EDC_VERSION}`,
    files() {
      return [
        "tests/connector/edc-dataspace.test.ts",
        "tests/connector/negotiate-by-directory.test.ts",
        "tests/connector/offer-from-the-hub.test.ts",
        "tests/contract/connector.test.ts",
      ];
    },
    // one file at a time: both files negotiate with the same two connectors, and on 2 cores a contract
    // request of one could time out in the provider's state machine while the other's ran (a negotiation
    // TERMINATED instead of FINALIZED: CI on a clean clone, 29 Nov, 3 of 30 failed; alone, 20 of 20 passed)
    vitestArgs: ["--no-file-parallelism"],
    async start({ log }) {
      const ds = await startDataspace({ log });
      return {
        env: {
          EDC_PROVIDER_MANAGEMENT_URL: ds.provider.managementUrl,
          EDC_PROVIDER_API_KEY: ds.provider.apiKey,
          EDC_PROVIDER_PROTOCOL_URL: ds.provider.protocolUrl,
          EDC_PROVIDER_ID: ds.provider.id,
          EDC_CONSUMER_MANAGEMENT_URL: ds.consumer.managementUrl,
          EDC_CONSUMER_API_KEY: ds.consumer.apiKey,
          EDC_CONSUMER_PROTOCOL_URL: ds.consumer.protocolUrl,
          EDC_CONSUMER_ID: ds.consumer.id,
        },
        stop: ds.stop,
      };
    },
  };
}
