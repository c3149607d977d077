import pg from "pg";
import {
  RateLimiterPostgres,
  RateLimiterRes,
  RateLimiterSQLite,
  type RateLimiterStoreAbstract,
} from "rate-limiter-flexible";
import type { Config } from "../config";
import type { Db } from "./database";
import type { Relational } from "./relational";

/**
 * Rate limits of what an anonymous caller can start (docs/decisions/0045): sign-in starts and callbacks
 * (decision 0124), the embedded provider's password form (per client and per username), wallet sign-in starts, app-account
 * challenges, app accounts and device pairing. Counted by `rate-limiter-flexible` in the relational
 * store, so every instance on one PostgreSQL (`DATABASE_URL`) shares the counts; on the embedded store
 * in DATA_DIR's SQLite file. The table is made by a migration of our own (one table for every limit,
 * its keys prefixed by the limit's name), in the library's own shape. Which request counts against which
 * limit is the edge's to say (server/http/rate-limits.ts).
 */

/** the limits, by name: keys of Config["rateLimits"] */
export type RateLimitName = keyof Config["rateLimits"];

export type RateLimits = Awaited<ReturnType<typeof createRateLimits>>;

export const RATE_LIMIT_TABLE = "rate_limits";

export async function createRateLimits(opts: {
  config: Pick<Config, "databaseUrl" | "rateLimits">;
  rel: Relational;
  db: Db;
}) {
  const { config, rel, db } = opts;
  await rel.migrate("rate-limits-1", async (m) => {
    await m.schema
      .createTable(RATE_LIMIT_TABLE)
      .addColumn("key", "varchar(255)", (c) => c.primaryKey())
      .addColumn("points", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("expire", "bigint")
      .execute();
  });
  const pool =
    rel.dialect === "postgres" && config.databaseUrl
      ? new pg.Pool({ connectionString: config.databaseUrl, max: 2, connectionTimeoutMillis: 5000 })
      : undefined;
  pool?.on("error", (err) => console.error(`rate limits: PostgreSQL pool: ${err.message}`));
  const limiters = new Map<RateLimitName, RateLimiterStoreAbstract>();
  for (const name of Object.keys(config.rateLimits) as RateLimitName[]) {
    const { points, seconds } = config.rateLimits[name];
    const common = {
      keyPrefix: name,
      points,
      duration: seconds,
      tableName: RATE_LIMIT_TABLE,
      tableCreated: true,
    };
    limiters.set(
      name,
      pool
        ? new RateLimiterPostgres({ ...common, storeClient: pool, storeType: "pool" })
        : new RateLimiterSQLite({ ...common, storeClient: db, storeType: "better-sqlite3" }),
    );
  }
  const warned = new Set<string>();
  /** a store that fails lets the request through (the store's own failure is answered elsewhere) */
  const storeFailed = (name: RateLimitName, e: unknown): undefined => {
    if (!warned.has(name)) {
      warned.add(name);
      console.warn(`rate limits: could not count ${name}:`, e instanceof Error ? e.message : e);
    }
    return undefined;
  };
  const secondsOf = (r: RateLimiterRes) => Math.max(1, Math.ceil(r.msBeforeNext / 1000));

  return {
    /** takes one point of `name` for `key`: undefined within the limit, else the seconds until it is again */
    async take(name: RateLimitName, key: string): Promise<number | undefined> {
      try {
        await limiters.get(name)!.consume(key);
        return undefined;
      } catch (e) {
        if (e instanceof RateLimiterRes) return secondsOf(e);
        return storeFailed(name, e);
      }
    },
    /** gives back a point taken by `take` (for an attempt that turned out not to count) */
    async giveBack(name: RateLimitName, key: string): Promise<void> {
      try {
        await limiters.get(name)!.reward(key);
      } catch (e) {
        storeFailed(name, e);
      }
    },
    /** removes counts whose window ended more than an hour ago */
    async purge() {
      await rel.db
        .deleteFrom(RATE_LIMIT_TABLE)
        .where("expire", "<", Date.now() - 3_600_000)
        .execute();
    },
    async close() {
      await pool?.end();
    },
  };
}
