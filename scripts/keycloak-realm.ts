// Writes deploy/keycloak/realm.json from the persona table (scripts/keycloak/realm.ts), formatted
// by the project's Prettier. scripts/keycloak/realm.test.ts fails when the file and the table
// differ: run this, then commit.
import { writeFileSync } from "node:fs";
import { format, resolveConfig } from "prettier";
import { keycloakRealm } from "./keycloak/realm";

const file = "deploy/keycloak/realm.json";
const options = (await resolveConfig(file)) ?? {};
writeFileSync(file, await format(JSON.stringify(keycloakRealm()), { ...options, parser: "json" }));
console.log(`wrote ${file}`);
