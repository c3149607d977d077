import js from "@eslint/js";
import tseslint from "typescript-eslint";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import importX, { createNodeResolver } from "eslint-plugin-import-x";
import { readdirSync } from "node:fs";

/*
 * The layers of server/ (docs/decisions/0008-server-layers.md). Bottom: the HTTP kernel
 * (server/http) and the infrastructure (config, storage, auth, audit), which know no capability.
 * Middle: one folder per capability. Top: the container (services.ts, start-dataspace.ts,
 * static-mode/), the route wiring (api-routes.ts, openapi/) and the entry (app.ts, index.ts).
 */
const TOP = [
  "./server/services.ts",
  "./server/start-dataspace.ts",
  "./server/api-routes.ts",
  "./server/app.ts",
  "./server/index.ts",
  "./server/openapi",
  "./server/static-mode",
];
const BOTTOM = ["http", "config", "storage", "auth", "audit"];
const CAPABILITIES = readdirSync("server", { withFileTypes: true })
  .filter((d) => d.isDirectory() && !BOTTOM.includes(d.name) && !["openapi", "static-mode"].includes(d.name))
  .map((d) => d.name);

/*
 * Every capability's public entry is its index.ts: another capability imports it only through it
 * (docs/decisions/0015, 0020). A capability without an index.ts is imported by no other capability
 * (its service and handler map are wired by the top layer). Handler maps are not exported by an
 * index: they belong to the route wiring (server/api-routes.ts).
 */
const PUBLIC_INDEX = CAPABILITIES;
/*
 * Leaf modules published beside an index. The dataspace's index loads the pooled upstream fetch
 * (npm undici); a capability that other modules load early (credentials, policies) importing it
 * made npm undici's Agent Node's global fetch dispatcher, and the sign-in's token request failed
 * ("invalid content-length header"). These leaves load no client and start nothing.
 */
const PUBLISHED = {
  dataspace: ["./failures.ts", "./runtime.ts", "./upstream-http.ts", "./oauth-token.ts", "./participants.ts"],
  // which stored ids are a person's: federated reads them, and privacy's index imports federated
  privacy: ["./ids.ts"],
};
/*
 * The two files of overview that compose the insight capabilities as the top layer does: they build
 * the analytics, federated, question and EEHRxF services around one shared OMOP index and concept
 * cache (insight.ts) and spread their handler maps (handlers.ts). They are exempt until they move
 * up beside the route wiring (docs/decisions/0020); the rest of overview goes through the indexes.
 */
const AGGREGATORS = ["./server/overview/insight.ts", "./server/overview/handlers.ts"];
/** a capability's folder, or its files other than the aggregators when it holds one */
const capabilityTargets = (name) => {
  const dir = `./server/${name}`;
  if (!AGGREGATORS.some((a) => a.startsWith(`${dir}/`))) return [dir];
  return readdirSync(`server/${name}`, { recursive: true })
    .map((f) => `${dir}/${f}`)
    .filter((f) => /\.tsx?$/.test(f) && !AGGREGATORS.includes(f));
};

/* views: components get their data from loaders; server types only through app/types.ts (docs/decisions/0009) */
const componentZones = [
  {
    target: "./app/components",
    from: "./server",
    message:
      "A component imports nothing from server/: it receives data from its route's loader, and shared types through app/types.ts (docs/decisions/0009).",
  },
];

const layerZones = [
  // the HTTP kernel: error model, request parsing, responses, route table, dispatcher
  {
    target: "./server/http",
    from: "./server",
    except: ["./http", "./auth", "./config"],
    message: "The HTTP kernel knows no capability and not the container (docs/decisions/0008).",
  },
  {
    target: "./server/config",
    from: "./server",
    except: ["./config"],
    message: "config is the bottom layer.",
  },
  {
    target: "./server/storage",
    from: "./server",
    except: ["./storage", "./config"],
    message: "storage knows only config.",
  },
  {
    target: "./server/auth",
    from: "./server",
    except: ["./auth", "./config", "./storage", "./http"],
    message: "auth is infrastructure: it knows config, storage and the HTTP kernel only.",
  },
  {
    target: "./server/audit",
    from: "./server",
    except: ["./audit", "./config", "./storage", "./http"],
    message: "audit is infrastructure: it knows config, storage and the HTTP kernel only.",
  },
  // capabilities never reach up to the container, the route wiring or the entry
  ...CAPABILITIES.map((name) => ({
    target: `./server/${name}`,
    from: TOP,
    message: "A capability declares the narrow services it needs; only the top layer knows the container.",
  })),
  // the embedded dataspace and the clients share only server/dataspace-protocol
  {
    target: "./server/local-dataspace",
    from: "./server/dataspace",
    message: "The embedded dataspace shares only server/dataspace-protocol with the clients.",
  },
  {
    target: "./server/dataspace",
    from: "./server/local-dataspace",
    message:
      "The dataspace clients speak HTTP to the connector they are given; the container starts the embedded one.",
  },
  // a capability reaches these capabilities only through their public index (docs/decisions/0015)
  ...PUBLIC_INDEX.map((name) => ({
    target: CAPABILITIES.filter((c) => c !== name).flatMap(capabilityTargets),
    from: `./server/${name}`,
    except: ["./index.ts", ...(PUBLISHED[name] ?? [])],
    message: `Another capability imports server/${name} only through its public index (server/${name}/index.ts; docs/decisions/0015, 0020).`,
  })),
  // only the container starts the embedded dataspace, and restarts it (server/start-dataspace.ts)
  {
    target: CAPABILITIES.filter((c) => c !== "local-dataspace").map((c) => `./server/${c}`),
    from: "./server/local-dataspace",
    message:
      "Only the container starts or restarts the embedded dataspace (server/start-dataspace.ts); a capability gets what it needs handed in (docs/decisions/0015).",
  },
  {
    target: "./server/dataspace-protocol",
    from: "./server",
    except: ["./dataspace-protocol", "./auth"],
    message: "The shared dataspace protocol knows neither side.",
  },
];

export default tseslint.config(
  {
    ignores: [
      "node_modules",
      "build",
      ".builds",
      "public/build",
      "dist",
      ".data",
      "test-results",
      "playwright-report",
      "fixtures",
      ".cache",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    plugins: { "react-hooks": reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" },
      ],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "no-console": "off",
    },
  },
  {
    files: ["server/**/*.{ts,tsx}", "app/**/*.{ts,tsx}"],
    plugins: { "import-x": importX },
    settings: {
      "import-x/resolver-next": [createNodeResolver({ extensions: [".ts", ".tsx", ".js", ".json"] })],
      // without these, import-x does not parse .ts files when it follows imports, and no-cycle sees nothing
      "import-x/extensions": [".ts", ".tsx", ".js", ".mjs"],
      "import-x/parsers": { "@typescript-eslint/parser": [".ts", ".tsx"] },
    },
    rules: {
      "import-x/no-cycle": ["error", { ignoreExternal: true }],
    },
  },
  {
    files: ["server/**/*.{ts,tsx}"],
    ignores: ["**/*.test.ts", "**/test-support.ts"],
    plugins: { "import-x": importX },
    rules: {
      "import-x/no-restricted-paths": ["error", { zones: layerZones }],
    },
  },
  {
    // an absolute in-app path is an AppLink: a plain anchor, not a Link resolved on every render (decision 0031)
    files: ["app/**/*.tsx"],
    rules: {
      "no-restricted-syntax": [
        "error",
        ...[
          "Literal[value=/^\\//]",
          "JSXExpressionContainer > TemplateLiteral > TemplateElement:first-child[value.raw=/^\\//]",
        ].map((value) => ({
          selector: `JSXOpeningElement[name.name=/^(Nav)?Link$/] > JSXAttribute[name.name="to"] > ${value}`,
          message: "Use AppLink or AppNavLink (app/components/ui/app-link.tsx) for an absolute in-app path.",
        })),
      ],
    },
  },
  {
    files: ["app/components/**/*.{ts,tsx}"],
    ignores: ["**/*.test.ts", "**/*.test.tsx"],
    plugins: { "import-x": importX },
    rules: {
      "import-x/no-restricted-paths": ["error", { zones: componentZones }],
    },
  },
);
