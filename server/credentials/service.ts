import { z } from "zod";
import type { SessionUser } from "../auth/user";
import type { Config } from "../config";
import { createReadCache, type Dataspace } from "../dataspace";
import { or502 } from "../dataspace/failures";
import {
  CREDENTIAL_NOT_FOUND,
  credentialDefinitionSchema,
  issuanceStartedSchema,
  readsAnyContext,
} from "../dataspace";
import { credentialSchema, toCredential, type Credential } from "../dataspace/participants";
import { remainingDeadline } from "../dataspace/runtime";
import { createKept, createKeptByInputs, deepFrozen, EVERYONE, inputVersions, keyText } from "../http/kept";
import { forbidden, notFound, serviceUnavailable } from "../http/errors";
import {
  createVerifier,
  didWebUrl,
  newVerificationInputs,
  notChecked,
  credentialVerification,
  type CredentialVerification,
  type CredentialVerifier,
  type VerificationInputs,
} from "./verify";

/**
 * Verifiable credentials for /api/credentials: the credentials the caller may see, each with its
 * verification (issuer, signature, validity, revocation through the issuer's status list), the
 * issuer's credential definitions, holder-initiated issuance (DCP) through the identity hub, and
 * revocation at the issuer. The credential types and what each proves: CREDENTIAL_PURPOSES.
 *
 * Who sees what: the operator and the access body see every credential the issuer issued; a
 * participant's staff see the credentials their organisation holds; anyone else none. Who revokes:
 * the operator any credential, the access body only those its own organisation holds.
 */

export const CREDENTIAL_FIELDS_REQUIRED = "participantContextId and credentialType are required";
/** the 403 of DELETE /api/credentials/{id} for a credential another organisation holds */
export const REVOKE_OWN_ONLY =
  "You may revoke only credentials held by your own organisation's participant context";

export const CREDENTIAL_PURPOSES: Record<string, { label: string; proves: string }> = {
  EHDSParticipantCredential: {
    label: "EHDS participant credential",
    proves:
      "membership of the health dataspace and the participant type (data holder, data user, access body)",
  },
  DataProcessingPurposeCredential: {
    label: "Data-processing purpose",
    proves:
      "the purpose of secondary use (Regulation (EU) 2025/327 Art. 53(1)) the holder may process data for",
  },
  DataQualityLabelCredential: {
    label: "Data quality and utility label",
    proves: "the data quality and utility label of the holder's datasets (Regulation (EU) 2025/327 Art. 78)",
  },
};

/** a credential as GET /api/credentials lists it: the spec's Credential with where it is held and its verification */
export const listedCredential = credentialSchema
  .extend({
    issuer: z.string().describe("the issuer's DID"),
    format: z.string().optional().describe("the issuer's format, e.g. VC1_0_JWT"),
    recordId: z
      .string()
      .nullable()
      .describe(
        "the issuer's record of it (its own id, not the credential's; DELETE /api/credentials/{id} takes either), null when listed from where it is held",
      ),
    holder: z.string().nullable().describe("the subject's DID"),
    participantContextId: z.string().nullable(),
    label: z.string(),
    status: z.enum(["valid", "revoked", "unverified"]),
    verification: credentialVerification,
  })
  .loose();
export type ListedCredential = z.infer<typeof listedCredential>;
/** a credential definition of the issuer, as it sends it, with what it proves */
export const labelledDefinition = credentialDefinitionSchema.extend({
  label: z.string(),
  proves: z.string(),
});
/** the 201 of POST /api/credentials/request */
export const issuanceStarted = issuanceStartedSchema.extend({ label: z.string(), note: z.string() });

/** a credential of a listing: where it is held, and the issuer's record id when read from the issuer */
interface SourceItem {
  credential: Credential;
  participantContextId: string | null;
  recordId: string | null;
}

/** the credentials of one listing, with where each is held, and what they were read from */
interface CredentialSource {
  /** the caller class: every issued credential, or one participant context's */
  key: string;
  /** the upstream answers, as the read cache hands them out (the same frozen arrays while valid) */
  inputs: readonly unknown[];
  items(): SourceItem[];
}

type IssuerClient = NonNullable<Dataspace["runtime"]["issuer"]>;
type IssuedCredential = Awaited<ReturnType<IssuerClient["listCredentials"]>>[number];
type Definition = Awaited<ReturnType<Dataspace["listCredentialDefinitions"]>>[number];

const labelOf = (type: string) => CREDENTIAL_PURPOSES[type]?.label ?? type;
const labelled = (defs: readonly Definition[]) =>
  defs.map((d) => ({
    ...d,
    label: labelOf(d.credentialType),
    proves: CREDENTIAL_PURPOSES[d.credentialType]?.proves ?? "defined by the issuer",
  }));

/** how long a DID document is reused: its keys change seldom, and a rotation is seen within this time */
const DID_DOCUMENT_MS = 60_000;

export function createCredentialService(deps: { config: Config; dataspace: Dataspace }) {
  const { config, dataspace } = deps;
  let verifier: CredentialVerifier | undefined;

  function getVerifier(): CredentialVerifier | undefined {
    const rt = dataspace.runtime;
    if (!rt.issuerDid) return undefined;
    if (!verifier) {
      // the embedded issuer's DID documents and status lists are the embedded dataspace's; a configured one's its own
      const local = config.issuerUrl ? undefined : dataspace.local;
      const origins = new Set<string>();
      if (local) origins.add(new URL(local.url).origin);
      if (rt.issuer) origins.add(new URL(rt.issuer.baseUrl).origin);
      const web = didWebUrl(rt.issuerDid);
      if (web && !local) origins.add(new URL(web).origin);
      const listKey = (url: string) => keyText("status list", url);
      const didDocuments = createReadCache({
        name: "issuer",
        ttlMs: DID_DOCUMENT_MS,
        timeoutMs: config.upstreamTimeoutMs,
      });
      verifier = createVerifier({
        issuerDid: rt.issuerDid,
        // status lists through the dataspace's read cache (see TrustAnchor.statusLists)
        statusLists: {
          read: (url, load) => dataspace.readCache.read(listKey(url), undefined, load, "issuer"),
          peek: (url) => dataspace.readCache.peek(listKey(url)),
        },
        didDocuments: {
          read: (url, load) => didDocuments.read(url, undefined, load),
          peek: (url) => didDocuments.peek(url),
        },
        didDocumentUrl: (did) =>
          local ? `${local.url}/dids/${encodeURIComponent(did)}` : (didWebUrl(did) ?? did),
        allowedOrigins: [...origins],
        timeoutMs: config.upstreamTimeoutMs,
        relocate: local
          ? (url) => {
              const u = new URL(url);
              const here = new URL(local.url);
              return ["127.0.0.1", "localhost", "[::1]"].includes(u.hostname) &&
                u.pathname.startsWith("/issuer/")
                ? `${here.origin}${u.pathname}${u.search}`
                : url;
            }
          : undefined,
      });
    }
    return verifier;
  }

  async function withVerification(
    items: SourceItem[],
    now = new Date(),
    inputs?: VerificationInputs,
  ): Promise<ListedCredential[]> {
    const v = getVerifier();
    const lists = new Map<string, Promise<Buffer>>();
    return Promise.all(
      items.map(async ({ credential, participantContextId, recordId }) => {
        const verification: CredentialVerification = v
          ? await v.verify(credential, now, lists, inputs)
          : {
              verified: false,
              reason: "issuer: no issuer is configured (ISSUER_URL), so nothing can be verified",
              checkedAt: now.toISOString(),
              checks: { ...notChecked(), issuer: { ok: false, detail: "no issuer configured" } },
            };
        const type = credential.type.find((t) => t !== "VerifiableCredential") ?? "VerifiableCredential";
        const subject = credential.credentialSubject;
        return {
          ...credential,
          recordId,
          holder: typeof subject.id === "string" ? subject.id : null,
          participantContextId,
          label: labelOf(type),
          status: verification.verified
            ? "valid"
            : !verification.checks.revocation.ok && /^revoked/.test(verification.checks.revocation.detail)
              ? "revoked"
              : "unverified",
          verification,
        } satisfies ListedCredential;
      }),
    );
  }

  async function ownContext(user: SessionUser): Promise<{ id: string; did: string } | undefined> {
    if (!user.participantDid) return undefined;
    const me = await dataspace.participantForUser(user);
    return me.id.startsWith("user:") ? undefined : { id: me.id, did: me.did ?? user.participantDid };
  }
  /** 403 with `refusal` unless `contextId` is the caller's own organisation's participant context */
  async function mustBeOwn(user: SessionUser, contextId: string | null, refusal: string) {
    const own = await ownContext(user);
    if (!own || own.id !== contextId) throw forbidden(refusal);
  }

  function held(id: string): Promise<CredentialSource> {
    return dataspace.participantCredentials(id).then((list) => ({
      key: keyText("held", id),
      inputs: [list],
      items: () => list.map((credential) => ({ credential, participantContextId: id, recordId: null })),
    }));
  }

  /**
   * The issuer's credentials `read` returns, each with the participant context that holds it (the
   * context whose DID is the credential's subject; null when none is).
   */
  async function withHolders(
    read: (issuer: IssuerClient) => Promise<readonly IssuedCredential[]>,
  ): Promise<Omit<CredentialSource, "key">> {
    const rt = dataspace.runtime;
    if (!rt.issuer) throw serviceUnavailable("No issuer service is configured (ISSUER_URL)");
    // no deadline armed per request: the first read has its own time-out, the second what is left of it
    const startedAt = Date.now();
    const issuer = rt.issuer;
    const list = await or502(() => read(issuer), "Failed to fetch credentials");
    const contexts = await rt.connector
      .listParticipantContexts(remainingDeadline(rt, startedAt))
      .catch(() => []);
    return {
      inputs: [list, contexts],
      items: () => {
        const byDid = new Map(contexts.map((c) => [c.participantId ?? c.identity ?? "", c["@id"]]));
        return list.map((c) => {
          const credential = toCredential(c.id, c.credential, { format: c.format });
          const holder =
            typeof credential.credentialSubject.id === "string" ? credential.credentialSubject.id : "";
          return { credential, participantContextId: byDid.get(holder) ?? null, recordId: c.id };
        });
      },
    };
  }

  /** every credential the issuer issued (every page), with its holder: the supervisors' listing */
  const issued = async (): Promise<CredentialSource> => ({
    key: "issued",
    ...(await withHolders((issuer) => issuer.listCredentials(undefined))),
  });

  /**
   * the issuer's record of credential `id` (its id or its issuer record id) with the participant context
   * holding it, read fresh from the issuer (not the read cache: a credential issued a moment ago
   * counts); 404 when the issuer has none
   */
  async function issuedRecord(id: string): Promise<SourceItem & { recordId: string }> {
    const source = await withHolders(async (issuer) => {
      const found = await issuer.getCredential(id);
      return found ? [found] : [];
    });
    const [found] = source.items();
    if (!found?.recordId) throw notFound(CREDENTIAL_NOT_FOUND);
    return { ...found, recordId: found.recordId };
  }

  /** what the caller may list (403 for another organisation's), undefined for nothing */
  async function sourceFor(user: SessionUser, participantId?: string): Promise<CredentialSource | undefined> {
    if (participantId) {
      if (!readsAnyContext(user))
        await mustBeOwn(user, participantId, "You may list only your own organisation's credentials");
      return held(participantId);
    }
    if (readsAnyContext(user)) return issued();
    const own = await ownContext(user);
    return own ? held(own.id) : undefined;
  }

  /**
   * Listings kept per caller class while they are made of the same upstream answers (the read
   * cache's frozen arrays) and their verification holds (VerificationInputs), as built (`checkedAt`).
   */
  const listings = createKept<{ list: ListedCredential[]; verification?: VerificationInputs }>({ max: 200 });
  const holds = (verification: VerificationInputs | undefined, now: Date) => {
    const v = getVerifier();
    return verification ? !!v && v.holds(verification, now) : !v;
  };
  const definitions = createKeptByInputs<ReturnType<typeof labelled>>(8);

  return {
    async list(user: SessionUser, participantId?: string, at?: Date): Promise<ListedCredential[]> {
      const source = await sourceFor(user, participantId);
      if (!source) return [];
      // checked as of after the read: a credential issued while it was under way is not "not valid before" now
      const now = at ?? new Date();
      const versions = inputVersions(source.inputs);
      const build = async () => {
        const verification = getVerifier() ? newVerificationInputs() : undefined;
        const list = deepFrozen(await withVerification(source.items(), now, verification));
        return { list, verification };
      };
      if (!versions) return (await build()).list;
      const key = { caller: source.key, versions };
      let kept = await listings(key, build);
      if (!holds(kept.verification, now)) {
        listings.forget(key);
        kept = await listings(key, build);
      }
      // a listing whose documents could not all be read is answered once, never again
      if (kept.verification && !kept.verification.reusable) listings.forget(key);
      return kept.list;
    },

    async definitions(): Promise<z.infer<typeof labelledDefinition>[]> {
      const defs = await dataspace.listCredentialDefinitions();
      return definitions(EVERYONE, [defs], () => labelled(defs));
    },

    async request(
      participantContextId: string,
      credentialType: string,
      user: SessionUser,
    ): Promise<z.infer<typeof issuanceStarted>> {
      if (!user.roles.includes("CONNECTOR_ADMIN"))
        await mustBeOwn(
          user,
          participantContextId,
          "You may request credentials only for your own organisation's participant context",
        );
      const started = await dataspace.requestCredential(participantContextId, credentialType, user.username);
      return {
        ...started,
        label: labelOf(started.credentialType),
        note: "The identity hub asked the issuer for the credential (DCP issuance); it appears in the holder's credentials once issued.",
      };
    },

    /**
     * Revocation at the issuer: the operator revokes any credential; everyone else (the access body)
     * only one its own organisation's participant context holds (decision 0043: it reads every
     * context's credentials, but writes only in its own), 403 otherwise; 404 for one the issuer has not issued.
     * The issuer revokes by its record id (decision 0095).
     */
    async revoke(id: string, user: SessionUser) {
      const found = await issuedRecord(id);
      if (!user.roles.includes("CONNECTOR_ADMIN"))
        await mustBeOwn(user, found.participantContextId, REVOKE_OWN_ONLY);
      await dataspace.revokeCredential(found.recordId, user.username);
    },

    /** the participant contexts the caller may request credentials for */
    async requestableContexts(user: SessionUser): Promise<{ id: string; did: string }[]> {
      const rt = dataspace.runtime;
      if (user.roles.includes("CONNECTOR_ADMIN")) {
        // one upstream call with its own time-out: no deadline armed per request
        const contexts = await rt.connector.listParticipantContexts().catch(() => []);
        return contexts
          .filter((c) => c.state === "ACTIVATED")
          .map((c) => ({ id: c["@id"], did: c.participantId ?? c.identity ?? "" }));
      }
      const own = await ownContext(user).catch(() => undefined);
      return own ? [own] : [];
    },
  };
}

export type CredentialService = ReturnType<typeof createCredentialService>;
