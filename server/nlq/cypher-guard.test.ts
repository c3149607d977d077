import { describe, expect, it } from "vitest";
import { checkReadOnly, matchShape, shapeOf } from "./cypher-guard";

describe("read-only guard for proposed Cypher", () => {
  it.each([
    "MATCH (n:Patient) RETURN count(n)",
    "MATCH (c:SnomedConcept {code: '68566005'})<-[:CODED_BY]-(o:ConditionOccurrence) RETURN count(DISTINCT o.personId)",
    "OPTIONAL MATCH (d:HealthDataset) WHERE d.title CONTAINS 'create' RETURN d.title // a comment with DELETE",
    "CALL db.labels() YIELD label RETURN label",
    "MATCH (d:HealthDataset) RETURN d.title AS dataset;",
    "WITH 1 AS x RETURN x",
  ])("accepts %s", (q) => {
    expect(checkReadOnly(q)).toEqual({ ok: true });
  });

  it.each([
    ["CREATE (n:Patient {name: 'x'}) RETURN n", /CREATE/],
    ["MATCH (n) DETACH DELETE n", /DETACH DELETE/],
    ["MATCH (n:Patient) SET n.name = 'x' RETURN n", /SET/],
    ["MATCH (n:Patient) REMOVE n.name RETURN n", /REMOVE/],
    ["MERGE (n:Patient {id: 1}) RETURN n", /MERGE/],
    ["DROP INDEX foo", /DROP/],
    ["LOAD CSV FROM 'http://evil.example/x.csv' AS row RETURN row", /LOAD CSV/],
    ["MATCH (n) CALL apoc.create.node(['X'], {}) YIELD node RETURN node", /APOC/],
    ["CALL dbms.security.createUser('x', 'y', false)", /dbms|CALL/],
    ["MATCH (n) RETURN n; MATCH (m) DELETE m", /more than one statement|DELETE/],
    ["MATCH (n) FOREACH (x IN [1] | SET n.a = x) RETURN n", /FOREACH|SET/],
    ["CALL { MATCH (n) DELETE n } IN TRANSACTIONS", /DELETE|TRANSACTIONS/],
    ["MATCH (n) RETURN apoc.text.join(['a'], ',')", /APOC/],
    ["SHOW USERS", /SHOW/],
    ["MATCH (n:Patient)", /RETURN/],
    ["", /no query/],
  ])("refuses %s", (q, why) => {
    const r = checkReadOnly(q);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(why);
  });

  it("does not see keywords inside literals or identifiers", () => {
    expect(checkReadOnly("MATCH (d:HealthDataset {title: 'SET DELETE CREATE'}) RETURN d.`create`")).toEqual({
      ok: true,
    });
    expect(checkReadOnly("MATCH (d:HealthDataset) RETURN d.dataset")).toEqual({ ok: true });
  });
});

describe("template shapes", () => {
  const template =
    "MATCH (c:SnomedConcept {code: $condition})<-[:CODED_BY]-(o:ConditionOccurrence)\nRETURN count(DISTINCT o.personId) AS patients LIMIT 10";
  it("maps literals of a query with the template's shape onto its parameters", () => {
    expect(
      matchShape(
        template,
        "match (c:SnomedConcept {code:'44054006'})<-[:CODED_BY]-(o:ConditionOccurrence) return count(distinct o.personId) as patients limit 10",
      ),
    ).toEqual({ condition: "44054006" });
    expect(
      matchShape(
        template,
        "MATCH (c:SnomedConcept {code: $x})<-[:CODED_BY]-(o:ConditionOccurrence) RETURN count(DISTINCT o.personId) AS patients LIMIT 10",
        { x: "68566005" },
      ),
    ).toEqual({ condition: "68566005" });
  });
  it("refuses other shapes and other fixed literals", () => {
    expect(matchShape(template, "MATCH (c:SnomedConcept {code: '1'}) RETURN c")).toBeNull();
    expect(
      matchShape(template, template.replace("LIMIT 10", "LIMIT 11").replace("$condition", "'1'")),
    ).toBeNull();
  });
  it("normalises whitespace and case but keeps the order of values", () => {
    expect(shapeOf("MATCH (a {x: 'q', y: 2})  RETURN a").values).toEqual([{ literal: "q" }, { literal: 2 }]);
  });
});
