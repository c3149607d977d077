/** "id title state" → "id" | "title" | "state" */
type Words<S extends string> = S extends `${infer W} ${infer Rest}` ? W | Words<Rest> : S;

/**
 * Only the named fields of a record ("id title state"): a loader sends its view the fields it shows,
 * no more. A name the record does not have is a type error.
 */
export function pick<T extends object, S extends string>(
  record: T,
  names: S & (Exclude<Words<S>, keyof T> extends never ? unknown : never),
): Pick<T, Words<S> & keyof T> {
  const out: Record<string, unknown> = {};
  for (const k of names.split(" ")) out[k] = record[k as keyof T];
  return out as Pick<T, Words<S> & keyof T>;
}
