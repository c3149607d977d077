// Runs a command with DATABASE_URL pointing at a throw-away PostgreSQL (scripts/postgres.mjs), then
// stops it: `node scripts/with-postgres.mjs npx vitest run server/audit`. With DATABASE_URL already
// set, the command runs against that server instead.
import { spawnSync } from "node:child_process";
import { startPostgres } from "./postgres.mjs";

const [cmd, ...args] = process.argv.slice(2);
if (!cmd) {
  console.error("usage: node scripts/with-postgres.mjs <command> [args...]");
  process.exit(2);
}
const pg = process.env.DATABASE_URL ? undefined : await startPostgres({ log: (m) => console.log(m) });
const r = spawnSync(cmd, args, {
  stdio: "inherit",
  env: { ...process.env, DATABASE_URL: process.env.DATABASE_URL ?? pg.url },
});
await pg?.stop();
process.exit(r.status ?? 1);
