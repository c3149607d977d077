import { EDC_NAMESPACE } from "../dataspace-protocol";
import { badRequest } from "./http";

/**
 * Evaluation of an EDC QuerySpec (`offset`, `limit`, `sortField`, `sortOrder`,
 * `filterExpression` of Criterion objects) over JSON records, for the local management API.
 * Operators: `=`, `!=`, `in`, `like` (SQL-style `%` wildcards), `<`, `>`, `<=`, `>=`.
 */

/** a QuerySpec the API cannot run: 400 on `filterExpression` */
const queryError = (message: string) => badRequest(message, "filterExpression");

/** the records a QuerySpec body selects (400 for a QuerySpec that cannot be run) */
export function queryRecords<T extends Record<string, unknown>>(records: T[], body: unknown): T[] {
  const o = body && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const num = (v: unknown, def: number) => (typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : def);
  const rawFilters = Array.isArray(o.filterExpression)
    ? o.filterExpression
    : o.filterExpression
      ? [o.filterExpression]
      : [];
  const filters = rawFilters.map((f) => {
    const c = (f ?? {}) as Record<string, unknown>;
    if (typeof c.operandLeft !== "string" || typeof c.operator !== "string") {
      throw queryError("filterExpression: each criterion needs operandLeft and operator");
    }
    return {
      left: c.operandLeft.replace(EDC_NAMESPACE, ""),
      op: c.operator.toLowerCase(),
      right: c.operandRight,
    };
  });
  const offset = num(o.offset, 0);
  const limit = Math.min(num(o.limit, 50), 10_000);
  const sortField = typeof o.sortField === "string" ? o.sortField.replace(EDC_NAMESPACE, "") : undefined;
  let out = records.filter((r) => filters.every((f) => matches(fieldOf(r, f.left), f.op, f.right)));
  if (sortField) {
    const dir = o.sortOrder === "DESC" ? -1 : 1;
    out = [...out].sort((a, b) => {
      const x = fieldOf(a, sortField);
      const y = fieldOf(b, sortField);
      if (x === y) return 0;
      if (x === undefined) return 1;
      if (y === undefined) return -1;
      return (x as number | string) < (y as number | string) ? -dir : dir;
    });
  }
  return out.slice(offset, offset + limit);
}

/**
 * Reads a (possibly dotted) field, looking into `properties` for assets and similar records; `id` is
 * a JSON-LD record's `@id`, else its `id` (the identity hub's and issuer's records).
 */
export function fieldOf(rec: Record<string, unknown>, path: string): unknown {
  const key = path === "id" && "@id" in rec ? "@id" : path;
  let cur: unknown = rec;
  for (const part of key.split(".")) {
    if (!cur || typeof cur !== "object") return undefined;
    const o = cur as Record<string, unknown>;
    cur = part in o ? o[part] : (o.properties as Record<string, unknown> | undefined)?.[part];
  }
  return cur;
}

function matches(value: unknown, op: string, right: unknown): boolean {
  switch (op) {
    case "=":
      return value === right || (value !== undefined && String(value) === String(right));
    case "!=":
      return !matches(value, "=", right);
    case "in":
      return Array.isArray(right) && right.some((r) => value === r || String(value) === String(r));
    case "like": {
      if (typeof value !== "string" || typeof right !== "string") return false;
      const re = new RegExp(`^${right.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/%/g, ".*")}$`, "i");
      return re.test(value);
    }
    case "<":
      return (value as number) < (right as number);
    case ">":
      return (value as number) > (right as number);
    case "<=":
      return (value as number) <= (right as number);
    case ">=":
      return (value as number) >= (right as number);
    default:
      throw queryError(`operator ${op} is not supported`);
  }
}
