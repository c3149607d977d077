// A real EDC IssuerService 0.15.1 and a holder's IdentityHub 0.15.1 on free ports of 127.0.0.1, for the
// issuer contract (tests/contract/issuer.test.ts); not a pass of `npm test` (decision 0095). IdentityHub
// 0.15.1 is on Maven Central (identityhub-bom); the IssuerService's own modules never were
// (issuerservice-bom, issuer-admin-api, issuerservice-core, ...: 404), so they are compiled here with javac
// from a checkout of the IdentityHub repository at v0.15.1, against its dependencies from Maven Central
// (the project's Gradle build needs services.gradle.org). A test-only extension creates a "super-user"
// context (role admin) in each runtime and writes its API key to a file; then the issuer's and the
// holder's contexts are made, and the holder asks the issuer for N credentials by DCP.
//
//   git clone --depth 1 --branch v0.15.1 https://github.com/eclipse-edc/IdentityHub /tmp/identityhub-0.15.1
//   IDENTITYHUB_SRC=/tmp/identityhub-0.15.1 node scripts/real-systems/issuer-service.mjs \
//     npx vitest run --no-file-parallelism tests/contract/issuer.test.ts tests/contract/identity-hub.test.ts
//
// runs the command with ISSUER_CONTRACT_URL, ISSUER_CONTRACT_API_KEY and ISSUER_CONTRACT_CONTEXT set, and
// IDENTITY_HUB_CONTRACT_* for the holder's IdentityHub (tests/contract/identity-hub.test.ts; run the two
// files one after the other, --no-file-parallelism: the identity hub's contract has the issuer issue
// more), then stops both runtimes (without a command: prints them and runs until Ctrl-C).
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { cacheDir, findJava, freePort, mavenClasspath, tempDir, tiedProcess } from "./jvm.mjs";

const VERSION = "0.15.1";
const EDC = "org.eclipse.edc";
const MAIN = "org.eclipse.edc.boot.system.runtime.BaseRuntime";
const log = (m) => console.error(m);
// as in connector-pass.mjs: two modules EDC's metadata names that Maven Central lacks; and jackson-databind
// pinned, as some module's metadata asks for "2.20", which Maven Central does not have (2.20.0, 2.20.1)
const MISSING = [
  { groupId: EDC, artifactId: "edr-cache-api" },
  { groupId: "org.eclipse.jetty.websocket", artifactId: "jetty-websocket" },
];
const JACKSON = { groupId: "com.fasterxml.jackson.core", artifactId: "jackson-databind", version: "2.20.1" };
const edc = (names) =>
  names.map((artifactId) => ({ groupId: EDC, artifactId, version: VERSION, exclusions: MISSING }));

// dist/bom/issuerservice-bom at v0.15.1: its modules on Maven Central, and what the others name in their
// build files (gradle/libs.versions.toml)
const ISSUER_DEPENDENCIES = [
  ...edc([
    "accesstoken-lib",
    "common-core",
    "common-lib",
    "dcp-core",
    "dcp-issuer-spi",
    "dcp-spi",
    "dcp-transform-lib",
    "did-spi",
    "holder-credential-request-spi",
    "identity-api-configuration",
    "identity-hub-did",
    "identity-hub-keypairs",
    "identity-hub-participants",
    "identity-hub-spi",
    "identityhub-api-authentication",
    "identityhub-api-authentication-lib",
    "identityhub-api-authorization",
    "issuerservice-holder-spi",
    "keypair-lib",
    "keypair-spi",
    "keypair-validators",
    "local-did-publisher",
    "participant-context-api",
    "participant-context-spi",
    "participant-context-validators",
    "sts-account-provisioner",
    "sts-account-service-local",
    "sts-api",
    "sts-core",
    "sts-spi",
    "verifiable-credential-spi",
    "api-observability",
    "boot",
    "configuration-filesystem",
    "connector-core",
    "core-spi",
    "decentralized-claims-spi",
    "decentralized-claims-transform",
    "http",
    "http-spi",
    "identity-did-core",
    "identity-did-spi",
    "identity-did-web",
    "jersey-providers-lib",
    "json-ld",
    "json-ld-lib",
    "json-ld-spi",
    "jwt-spi",
    "jwt-verifiable-credentials",
    "participant-context-config-core",
    "query-lib",
    "runtime-core",
    "sql-lib",
    "state-machine-lib",
    "store-lib",
    "token-core",
    "token-lib",
    "token-spi",
    "transaction-spi",
    "transform-lib",
    "util-lib",
    "validator-lib",
    "validator-spi",
    "verifiable-credentials-spi",
    "version-api",
    "web-spi",
  ]),
  { groupId: "com.nimbusds", artifactId: "nimbus-jose-jwt", version: "10.6" },
  {
    groupId: "io.opentelemetry.instrumentation",
    artifactId: "opentelemetry-instrumentation-annotations",
    version: "2.21.0",
  },
  { groupId: "jakarta.annotation", artifactId: "jakarta.annotation-api", version: "2.1.1" },
  { groupId: "jakarta.ws.rs", artifactId: "jakarta.ws.rs-api", version: "4.0.0" },
  JACKSON,
];
// the issuerservice-bom's modules Maven Central has not: compiled from the checkout
const ISSUER_MODULES = [
  "core/issuerservice/issuerservice-core",
  "core/issuerservice/issuerservice-credentials",
  "core/issuerservice/issuerservice-holders",
  "core/issuerservice/issuerservice-issuance",
  "core/lib/issuerservice-common-lib",
  "extensions/api/issuer-admin-api/attestation-api",
  "extensions/api/issuer-admin-api/credential-definition-api",
  "extensions/api/issuer-admin-api/credentials-api",
  "extensions/api/issuer-admin-api/holder-api",
  "extensions/api/issuer-admin-api/issuance-process-api",
  "extensions/api/issuer-admin-api/issuer-admin-api-authentication",
  "extensions/api/issuer-admin-api/issuer-admin-api-configuration",
  "extensions/issuance/issuerservice-holder-attestations",
  "extensions/issuance/issuerservice-issuance-rules",
  "extensions/issuance/local-statuslist-publisher",
  "protocols/dcp/dcp-issuer/dcp-issuer-api",
  "protocols/dcp/dcp-issuer/dcp-issuer-core",
  "protocols/dcp/dcp-validation-lib",
  "spi/issuerservice/issuerservice-credential-spi",
  "spi/issuerservice/issuerservice-issuance-spi",
];

// test only: the first admin of a runtime (IdentityHub 0.15.1 has no configured one), and every web
// context on 127.0.0.1 (EDC 0.15.1's Jetty has no host setting: it binds every interface)
const SEED = `package hub.realsystems;
import org.eclipse.edc.identityhub.spi.participantcontext.ParticipantContextService;
import org.eclipse.edc.identityhub.spi.participantcontext.model.KeyDescriptor;
import org.eclipse.edc.identityhub.spi.participantcontext.model.ParticipantManifest;
import org.eclipse.edc.runtime.metamodel.annotation.Inject;
import org.eclipse.edc.spi.system.ServiceExtension;
import org.eclipse.edc.spi.system.ServiceExtensionContext;
import org.eclipse.edc.web.jetty.JettyService;
public class SuperUserSeedExtension implements ServiceExtension {
    @Inject private ParticipantContextService participants;
    @Inject private JettyService jetty;
    private String keyFile;
    @Override public void initialize(ServiceExtensionContext context) {
        keyFile = context.getConfig().getString("hub.superuser.keyfile");
        jetty.addConnectorConfigurationCallback(connector -> connector.setHost("127.0.0.1"));
    }
    @Override public void start() {
        var manifest = ParticipantManifest.Builder.newInstance().participantContextId("super-user")
                .did("did:web:super-user").active(true).roles(java.util.List.of("admin"))
                .key(KeyDescriptor.Builder.newInstance().keyId("super-user-key").privateKeyAlias("super-user-alias")
                        .keyGeneratorParams(java.util.Map.of("algorithm", "EdDSA", "curve", "Ed25519")).build())
                .build();
        var key = participants.createParticipantContext(manifest).orElseThrow(f -> new RuntimeException(f.getFailureDetail())).apiKey();
        try { java.nio.file.Files.writeString(java.nio.file.Path.of(keyFile), key); } catch (java.io.IOException e) { throw new RuntimeException(e); }
    }
}
`;

function compile({ java, src, classpath }) {
  const out = cacheDir(`issuerservice-${VERSION}-classes`);
  const marker = path.join(out, "compiled.txt");
  // compiled again when the checkout or the seed changes
  const stamp = `${src}\n${createHash("sha256").update(SEED).digest("hex")}`;
  if (existsSync(marker) && readFileSync(marker, "utf8") === stamp) return out;
  rmSync(path.join(out, "classes"), { recursive: true, force: true });
  const seedDir = path.join(out, "seed", "hub", "realsystems");
  mkdirSync(seedDir, { recursive: true });
  writeFileSync(path.join(seedDir, "SuperUserSeedExtension.java"), SEED);
  const services = path.join(out, "seed-resources", "META-INF", "services");
  mkdirSync(services, { recursive: true });
  writeFileSync(
    path.join(services, "org.eclipse.edc.spi.system.ServiceExtension"),
    "hub.realsystems.SuperUserSeedExtension\n",
  );
  const files = [path.join(seedDir, "SuperUserSeedExtension.java")];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".java")) files.push(p);
    }
  };
  for (const m of ISSUER_MODULES) walk(path.join(src, m, "src/main/java"));
  writeFileSync(path.join(out, "sources.txt"), files.join("\n"));
  log(`Compiling ${files.length} sources of IssuerService ${VERSION}…`);
  execFileSync(
    path.join(java.home, "bin", "javac"),
    [
      "-nowarn",
      "-proc:none",
      "-d",
      path.join(out, "classes"),
      "-cp",
      classpath.join(":"),
      `@${path.join(out, "sources.txt")}`,
    ],
    { stdio: "inherit" },
  );
  writeFileSync(marker, stamp);
  return out;
}

const b64 = (s) => Buffer.from(s).toString("base64url");

async function call(method, url, key, body) {
  const r = await fetch(url, {
    method,
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: body && JSON.stringify(body),
  });
  const text = await r.text();
  if (!r.ok) throw new Error(`${method} ${url}: HTTP ${r.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

async function startRuntime({ name, java, classpath, dir, props, ready }) {
  const keyFile = path.join(dir, `${name}-superuser.key`);
  const file = path.join(dir, `${name}.properties`);
  const all = { ...props, "hub.superuser.keyfile": keyFile, "edc.iam.did.web.use.https": false };
  writeFileSync(
    file,
    Object.entries(all)
      .map(([k, v]) => `${k}=${v}`)
      .join("\n"),
  );
  const proc = await tiedProcess({
    name: `${name} ${VERSION}`,
    command: java.java,
    args: ["-Xmx384m", "-XX:+UseSerialGC", `-Dedc.fs.config=${file}`, "-cp", classpath.join(":"), MAIN],
    cwd: dir,
    logFile: path.join(dir, `${name}.log`),
    ready: async () => existsSync(keyFile) && (await ready(readFileSync(keyFile, "utf8"))),
    log,
  });
  return { ...proc, superUser: readFileSync(keyFile, "utf8") };
}

/** ports of the named web contexts, each on its own free port */
async function contexts(paths) {
  const props = {};
  const urls = {};
  for (const [ctx, p] of Object.entries(paths)) {
    const port = await freePort();
    const prefix = ctx === "default" ? "web.http" : `web.http.${ctx}`;
    props[`${prefix}.port`] = port;
    props[`${prefix}.path`] = p;
    urls[ctx] = `http://127.0.0.1:${port}${p === "/" ? "" : p}`;
  }
  return { props, urls };
}

export async function startIssuerService({ src, credentials = 3 }) {
  if (!src || !existsSync(path.join(src, "core/issuerservice")))
    throw new Error("IDENTITYHUB_SRC must name a checkout of eclipse-edc/IdentityHub at v0.15.1");
  const java = findJava([17, 21], { log });
  const holderJars = mavenClasspath(`identityhub-${VERSION}`, [...edc(["identityhub-bom"]), JACKSON], {
    log,
    java,
  });
  const issuerJars = mavenClasspath(`issuerservice-${VERSION}-deps`, ISSUER_DEPENDENCIES, { log, java });
  const built = compile({ java, src, classpath: issuerJars });
  const seed = [path.join(built, "classes"), path.join(built, "seed-resources")];
  const resources = ISSUER_MODULES.map((m) => path.join(src, m, "src/main/resources")).filter(existsSync);
  const dir = tempDir("issuer-service");

  const issuerWeb = await contexts({
    default: "/api",
    issueradmin: "/api/issuer",
    issuance: "/api/issuance",
    identity: "/api/identity",
    did: "/",
    sts: "/api/sts",
    version: "/api/version",
    statuslist: "/statuslist",
  });
  const holderWeb = await contexts({
    default: "/api",
    credentials: "/api/credentials",
    identity: "/api/identity",
    did: "/",
    sts: "/api/sts",
    version: "/api/version",
    accounts: "/api/accounts",
  });
  const common = {
    "edc.iam.accesstoken.jti.validation": true,
    "edc.iam.sts.publickey.id": "test-public-key",
  };
  const issuer = await startRuntime({
    name: "issuer",
    java,
    dir,
    classpath: [...seed, ...resources, ...issuerJars],
    props: {
      ...issuerWeb.props,
      ...common,
      "edc.iam.sts.privatekey.alias": "test-private-key",
      "edc.issuer.statuslist.signing.key.alias": "signing-key",
      "edc.sts.account.api.url": "http://127.0.0.1:1/accounts",
      "edc.sts.accounts.api.auth.header.value": "unused",
    },
    ready: async (key) =>
      (await fetch(`${issuerWeb.urls.identity}/v1alpha/participants`, { headers: { "x-api-key": key } })).ok,
  });
  let holder;
  try {
    holder = await startRuntime({
      name: "identityhub",
      java,
      dir,
      classpath: [...seed, ...holderJars],
      props: { ...holderWeb.props, ...common, "edc.iam.sts.privatekey.alias": "user1-alias" },
      ready: async (key) =>
        (await fetch(`${holderWeb.urls.identity}/v1alpha/participants`, { headers: { "x-api-key": key } }))
          .ok,
    });
  } catch (e) {
    await issuer.stop();
    throw e;
  }
  const stop = async () => {
    await Promise.all([holder.stop(), issuer.stop()]);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const didOf = (url, id) => `did:web:${new URL(url).host.replace(":", "%3A")}:${id}`;
    const key = (id, did) => ({
      keyId: `${did}#key`,
      privateKeyAlias: `${id}-alias`,
      resourceId: `${id}-resource`,
      keyGeneratorParams: { algorithm: "EC", curve: "secp256r1" },
      usage: ["sign_credentials", "sign_presentation", "sign_token"],
    });
    const issuerDid = didOf(issuerWeb.urls.did, "issuer");
    const holderDid = didOf(holderWeb.urls.did, "holder");
    const { apiKey: issuerKey } = await call(
      "POST",
      `${issuerWeb.urls.identity}/v1alpha/participants`,
      issuer.superUser,
      {
        participantContextId: "issuer",
        did: issuerDid,
        active: true,
        key: key("issuer", issuerDid),
        serviceEndpoints: [
          {
            id: "issuer",
            type: "IssuerService",
            serviceEndpoint: `${issuerWeb.urls.issuance}/v1alpha/participants/${b64("issuer")}`,
          },
        ],
      },
    );
    const { apiKey: holderKey } = await call(
      "POST",
      `${holderWeb.urls.identity}/v1alpha/participants`,
      holder.superUser,
      {
        participantContextId: "holder",
        did: holderDid,
        active: true,
        key: key("holder", holderDid),
        serviceEndpoints: [
          {
            id: "credential-service",
            type: "CredentialService",
            serviceEndpoint: `${holderWeb.urls.credentials}/v1/participants/${b64("holder")}`,
          },
        ],
      },
    );
    const admin = `${issuerWeb.urls.issueradmin}/v1alpha/participants/${b64("issuer")}`;
    await call("POST", `${admin}/attestations`, issuerKey, {
      id: "holder-attestation",
      attestationType: "holder",
      configuration: {},
    });
    await call("POST", `${admin}/holders`, issuerKey, {
      holderId: "holder",
      did: holderDid,
      name: "Holder",
      properties: { participant: { name: "Holder organisation" } },
    });
    await call("POST", `${admin}/credentialdefinitions`, issuerKey, {
      id: "membership",
      credentialType: "MembershipCredential",
      jsonSchemaUrl: "https://example.com/schema",
      jsonSchema: "{}",
      attestations: ["holder-attestation"],
      validity: 31_536_000,
      format: "VC1_0_JWT",
      mappings: [{ input: "participant.name", output: "credentialSubject.organisation", required: true }],
      rules: [],
    });
    for (let i = 0; i < credentials; i++)
      await call(
        "POST",
        `${holderWeb.urls.identity}/v1alpha/participants/${b64("holder")}/credentials/request`,
        holderKey,
        {
          issuerDid,
          holderPid: `request-${i}`,
          credentials: [{ format: "VC1_0_JWT", id: "membership", type: "MembershipCredential" }],
        },
      );
    // issued: the issuer keeps each credential, and one status list credential alongside
    const deadline = Date.now() + 60_000;
    for (;;) {
      const issued = await call("POST", `${admin}/credentials/query`, issuerKey, { limit: 1000 });
      if (issued.length >= credentials + 1) break;
      if (Date.now() > deadline)
        throw new Error(`the issuer issued ${issued.length - 1} of ${credentials} credentials`);
      await new Promise((r) => setTimeout(r, 500));
    }
    return {
      env: {
        ISSUER_CONTRACT_URL: issuerWeb.urls.issueradmin,
        ISSUER_CONTRACT_API_KEY: issuerKey,
        ISSUER_CONTRACT_CONTEXT: "issuer",
        // the holder's identity API with its super-user's key: the hub reads every participant's credentials
        IDENTITY_HUB_CONTRACT_URL: holderWeb.urls.identity,
        IDENTITY_HUB_CONTRACT_API_KEY: holder.superUser,
        IDENTITY_HUB_CONTRACT_CONTEXT: "holder",
        IDENTITY_HUB_CONTRACT_ISSUER_DID: issuerDid,
        IDENTITY_HUB_CONTRACT_CREDENTIAL: "membership:MembershipCredential",
      },
      stop,
    };
  } catch (e) {
    log(`logs: ${dir}`);
    await Promise.all([holder.stop(), issuer.stop()]);
    throw e;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const system = await startIssuerService({ src: process.env.IDENTITYHUB_SRC });
  const command = process.argv.slice(2);
  if (command.length === 0) {
    for (const [k, v] of Object.entries(system.env)) console.log(`${k}=${v}`);
    process.on("SIGINT", () => system.stop().then(() => process.exit(0)));
    await new Promise(() => {});
  }
  const r = spawnSync(command[0], command.slice(1), {
    stdio: "inherit",
    env: { ...process.env, ...system.env },
  });
  await system.stop();
  process.exit(r.status ?? 1);
}
