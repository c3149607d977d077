/** Participant context ids in issuer and identity hub paths: base64url of the id (EDC's convention). */
export const encodeContextId = (id: string) => Buffer.from(id, "utf8").toString("base64url");

/** The id of an encoded context id, or undefined when it is not one. */
export function decodeContextId(encoded: string): string | undefined {
  try {
    const s = Buffer.from(encoded, "base64url").toString("utf8");
    return s && encodeContextId(s) === encoded.replace(/=+$/, "") ? s : undefined;
  } catch {
    return undefined;
  }
}
