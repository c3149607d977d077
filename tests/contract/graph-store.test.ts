import { describe } from "vitest";
import { createAuditLog } from "../../server/audit/log";
import { openSqliteRelational } from "../../server/storage/relational/sqlite";
import { createNeo4jGraphStore } from "../../server/graph/neo4j-store";
import { createPostgresGraphStore } from "../../server/graph/postgres-store";
import { createSqliteGraphStore } from "../../server/graph/sqlite-store";
import { openDatabase } from "../../server/storage/database";
import { openTestStore } from "../support/relational";
import { testDatabaseUrl } from "../support/postgres";
import { graphStoreContract } from "./graph-store.contract";

describe("GraphStore contract: embedded SQLite", () => {
  graphStoreContract(async () => {
    const db = openDatabase(":memory:");
    const audit = await createAuditLog(openSqliteRelational(db), db);
    return { store: createSqliteGraphStore(db, audit), audit, cleanup: async () => void db.close() };
  });
});

// Runs whenever DATABASE_URL is set (the PostgreSQL pass): a database of its own per store
describe.runIf(!!testDatabaseUrl())("GraphStore contract: PostgreSQL", () => {
  graphStoreContract(async () => {
    const pg = await openTestStore("postgres");
    const audit = await createAuditLog(pg.rel);
    return { store: await createPostgresGraphStore(pg.rel, audit), audit, cleanup: () => pg.close() };
  });
});

// Runs whenever NEO4J_URI is set (e.g. bolt://localhost:7687 with NEO4J_PASSWORD); it empties the database it is given.
describe.runIf(!!process.env.NEO4J_URI)("GraphStore contract: Neo4j", () => {
  graphStoreContract(async () => {
    const db = openDatabase(":memory:");
    const rel = openSqliteRelational(db);
    const audit = await createAuditLog(rel, db);
    const store = await createNeo4jGraphStore(
      {
        uri: process.env.NEO4J_URI!,
        user: process.env.NEO4J_USER ?? "neo4j",
        password: process.env.NEO4J_PASSWORD ?? "",
        database: process.env.NEO4J_DATABASE,
        // the contract is about answers: a slow first plan on a loaded machine is not a 503 here (the
        // deadline itself is tested by tests/api/faults-neo4j*.test.ts)
        timeoutMs: 30_000,
      },
      audit,
      rel,
    );
    const neo4j = (await import("neo4j-driver")).default;
    const driver = neo4j.driver(
      process.env.NEO4J_URI!,
      neo4j.auth.basic(process.env.NEO4J_USER ?? "neo4j", process.env.NEO4J_PASSWORD ?? ""),
    );
    await driver.executeQuery("MATCH (n) DETACH DELETE n", {}, { database: process.env.NEO4J_DATABASE });
    await driver.close();
    return {
      store,
      audit,
      cleanup: async () => {
        await store.close();
        db.close();
      },
    };
  });
});
