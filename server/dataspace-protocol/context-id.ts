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

/** IdentityHub 0.15.1's VcStatus: a credential resource's `state` is its code */
export const VC_STATUS: Readonly<Record<number, string>> = {
  100: "INITIAL",
  200: "REQUESTING",
  300: "REQUESTED",
  400: "ISSUING",
  500: "ISSUED",
  600: "REVOKED",
  700: "SUSPENDED",
  800: "EXPIRED",
  900: "NOT_YET_VALID",
  [-100]: "ERROR",
};
