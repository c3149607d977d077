import type { IncomingMessage } from "node:http";
import { closeAfterAnswer, readBody as readUpTo } from "../../http/node-adapter";
import { bodyTooLarge } from "../../http/limits";

/** A request the sign-in pages refuse before looking at it (the status express's body parser gave). */
export class BodyError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** a request body that may hold something: a Transfer-Encoding, or a Content-Length above 0 */
function hasBody(req: IncomingMessage): boolean {
  return req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"]) > 0;
}

/** the media type of a Content-Type header, lower case, without parameters */
function mediaType(contentType: string | undefined): string {
  return (contentType ?? "").split(";")[0].trim().toLowerCase();
}

/** the charset parameter of a Content-Type header, lower case, if any */
function charsetOf(contentType: string | undefined): string | undefined {
  return /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(contentType ?? "")?.[1]?.toLowerCase();
}

/**
 * The whole body of `req` (identity encoding), at most `limit` bytes (the edge's reader, node-adapter.ts).
 * A larger one (announced or sent) is refused with 413 at once: the rest is discarded, bounded, while the
 * answer waits, and the connection closes after it (`closeAfterAnswer`: answer through
 * `sendWebResponse`). A body cut off is refused with 400.
 */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const body = await readUpTo(req, limit).catch(() => {
    throw new BodyError(400, "The request body ended before it was complete");
  });
  if (body) return body;
  closeAfterAnswer(req);
  throw new BodyError(413, bodyTooLarge(limit));
}

/** A parsed form: a field sent once is a string, a field sent more than once the list of its values. */
export type FormFields = Record<string, string | string[]>;

const FORM_LIMIT = 8 * 1024;
const FORM_PARAMETER_LIMIT = 1000;

/**
 * The URL-encoded form in the body of `req`, as `express.urlencoded({ extended: false, limit: "8kb" })`
 * gave it (`{}` for a request without a body), but a body of another content type is refused with 415
 * (its body left unread), as are a charset other than utf-8 and a compressed body; 413 for more than
 * 8 kB or 1000 fields.
 */
export async function readForm(req: IncomingMessage): Promise<FormFields> {
  const contentType = req.headers["content-type"];
  if (!hasBody(req)) return {};
  const type = mediaType(contentType);
  if (type !== "application/x-www-form-urlencoded")
    throw new BodyError(
      415,
      `The sign-in form must be sent as application/x-www-form-urlencoded, not "${type}"`,
    );
  const charset = charsetOf(contentType) ?? "utf-8";
  if (charset !== "utf-8")
    throw new BodyError(415, `The sign-in form must be sent as UTF-8, not "${charset.toUpperCase()}"`);
  const encoding = (req.headers["content-encoding"] ?? "identity").toLowerCase();
  if (encoding !== "identity")
    throw new BodyError(
      415,
      `The sign-in form must be sent uncompressed, not with Content-Encoding "${encoding}"`,
    );
  const text = (await readBody(req, FORM_LIMIT)).toString("utf8");
  if (text === "") return {};
  let ampersands = 0;
  for (let i = text.indexOf("&"); i !== -1; i = text.indexOf("&", i + 1)) {
    if (++ampersands === FORM_PARAMETER_LIMIT)
      throw new BodyError(413, `Too many form fields (limit ${FORM_PARAMETER_LIMIT})`);
  }
  const fields: FormFields = Object.create(null) as FormFields; // a field named __proto__ is a field
  for (const [name, value] of new URLSearchParams(text)) {
    const seen = fields[name];
    fields[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  return fields;
}
