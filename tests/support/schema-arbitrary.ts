import fc from "fast-check";

/**
 * fast-check arbitraries for values described by a JSON Schema of the OpenAPI document (the subset
 * `z.toJSONSchema` writes: type, const, enum, anyOf/oneOf/allOf, properties/required, items,
 * string lengths and patterns, number bounds, $ref to the document's components), and mutations of
 * a value that should make it invalid by the same schema. Used by the document-driven fuzzer
 * (tests/api/openapi-fuzz-writes.test.ts); whether a value really is valid is decided by ajv there.
 */

export type Schema = Record<string, unknown>;

export function schemaArbitrary(schema: Schema, components: Record<string, Schema>): fc.Arbitrary<unknown> {
  const resolve = (s: Schema): Schema => {
    const ref = s.$ref;
    if (typeof ref === "string" && ref.startsWith("#/components/schemas/"))
      return resolve(components[ref.slice("#/components/schemas/".length)] ?? {});
    return s;
  };
  /** allOf's branches folded into one schema: later constraints on a key win over earlier ones */
  const merged = (s: Schema): Schema => {
    if (!Array.isArray(s.allOf)) return s;
    const out: Schema = { ...s };
    delete out.allOf;
    const props: Record<string, Schema> = { ...((s.properties as Record<string, Schema>) ?? {}) };
    const required = new Set<string>((s.required as string[]) ?? []);
    for (const branch of (s.allOf as Schema[]).map((b) => merged(resolve(b)))) {
      for (const [k, v] of Object.entries(branch)) {
        if (k === "properties")
          for (const [p, ps] of Object.entries(v as Record<string, Schema>))
            props[p] = { ...(props[p] ?? {}), ...ps };
        else if (k === "required") for (const r of v as string[]) required.add(r);
        else out[k] = v;
      }
    }
    if (Object.keys(props).length) out.properties = props;
    if (required.size) out.required = [...required];
    return out;
  };

  const of = (raw: Schema, depth: number): fc.Arbitrary<unknown> => {
    const s = merged(resolve(raw));
    if ("const" in s) return fc.constant(s.const);
    if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
    const branches = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
    if (branches)
      return fc.oneof(...branches.map((b) => of({ ...s, anyOf: undefined, oneOf: undefined, ...b }, depth)));
    const type = Array.isArray(s.type) ? (s.type as string[]) : s.type ? [s.type as string] : undefined;
    if (type && type.length > 1) return fc.oneof(...type.map((t) => of({ ...s, type: t }, depth)));
    const t = type?.[0] ?? (s.properties ? "object" : s.items ? "array" : undefined);
    switch (t) {
      case "null":
        return fc.constant(null);
      case "boolean":
        return fc.boolean();
      case "integer":
        return fc.integer({
          min: typeof s.minimum === "number" ? Math.ceil(s.minimum) : -1000,
          max: typeof s.maximum === "number" ? Math.floor(s.maximum) : 100_000,
        });
      case "number":
        return fc.double({
          min: typeof s.minimum === "number" ? s.minimum : -1000,
          max: typeof s.maximum === "number" ? s.maximum : 100_000,
          noNaN: true,
          noDefaultInfinity: true,
        });
      case "string":
        return stringOf(s);
      case "array": {
        const min = (s.minItems as number | undefined) ?? 0;
        const max = Math.min((s.maxItems as number | undefined) ?? min + 3, min + 3);
        return fc.array(depth > 4 ? fc.constant("x") : of((s.items as Schema) ?? {}, depth + 1), {
          minLength: min,
          maxLength: max,
        });
      }
      case "object": {
        const props = (s.properties as Record<string, Schema>) ?? {};
        const required = (s.required as string[]) ?? [];
        if (depth > 4) return fc.constant({});
        return fc.record(Object.fromEntries(Object.entries(props).map(([k, v]) => [k, of(v, depth + 1)])), {
          requiredKeys: required.filter((k) => k in props),
        });
      }
      default:
        return fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean());
    }
  };
  return of(schema, 0);
}

function stringOf(s: Schema): fc.Arbitrary<string> {
  const min = (s.minLength as number | undefined) ?? 0;
  const max = (s.maxLength as number | undefined) ?? Math.max(min, 24);
  const fits = (v: string) => v.length >= min && v.length <= max;
  if (typeof s.pattern === "string") {
    try {
      return fc.stringMatching(new RegExp(s.pattern)).filter(fits);
    } catch {
      // a pattern fast-check cannot generate from: plain strings, ajv sorts them out
    }
  }
  if (s.format === "date-time") return fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
  if (s.format === "date") return fc.date({ noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
  if (s.format === "email") return fc.emailAddress().filter(fits);
  if (s.format === "uri") return fc.webUrl().filter(fits);
  return fc.string({ minLength: min, maxLength: Math.min(max, min + 24) });
}

/** a value that should be invalid by its schema, made from a valid one */
export function mutationOf(valid: unknown): fc.Arbitrary<unknown> {
  const wrong = fc.constantFrom<unknown>(null, 42, -1, "", " ", "x".repeat(301), true, [], {}, "\u000bid");
  if (valid === null || typeof valid !== "object" || Array.isArray(valid))
    return fc.oneof(wrong, fc.constant({ unexpected: valid }));
  const keys = Object.keys(valid as object);
  if (!keys.length) return fc.oneof(wrong, fc.constant([]));
  return fc.oneof(
    // a field left out
    fc.constantFrom(...keys).map((k) => {
      const copy: Record<string, unknown> = { ...(valid as object) };
      delete copy[k];
      return copy;
    }),
    // a field of the wrong type or out of its bounds
    fc.tuple(fc.constantFrom(...keys), wrong).map(([k, w]) => ({ ...(valid as object), [k]: w })),
    // not an object at all
    fc.constantFrom<unknown>([], "body", 7, null),
  );
}
