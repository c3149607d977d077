// HUB_BUILD_DIR lets a second build (a desktop package, a parallel test run) live beside the default one.
const out = process.env.HUB_BUILD_DIR ?? "build";

/** @type {import('@remix-run/dev').AppConfig} */
export default {
  appDirectory: "app",
  assetsBuildDirectory: `${out}/client`,
  publicPath: "/build/",
  serverBuildPath: `${out}/remix/index.js`,
  serverModuleFormat: "esm",
  serverPlatform: "node",
  ignoredRouteFiles: ["**/.*", "**/*.test.{ts,tsx}"],
  // server/ holds Node-only modules; views receive services through the load context instead
  serverDependenciesToBundle: [],
  future: {
    v3_fetcherPersist: true,
    v3_relativeSplatPath: true,
    v3_throwAbortReason: true,
    v3_lazyRouteDiscovery: true,
    v3_singleFetch: true,
  },
};
