import { ApiError } from "../http/errors";
import type { Relational } from "../storage/relational";
import { findOrganisation } from "../auth/personas";
import { DISCLOSURES, MOST_RESTRICTIVE, type Disclosure } from "../dataspace-protocol";

/**
 * Data permits in the dataspace exchange (EHDS Art. 68, issue 34): a contract for health data in
 * secondary use needs a valid data permit of the access body that names the requesting organisation
 * and the dataset; the hub records which permit each negotiation it started rests on, and every
 * pull asks again whether that permit is still valid (a revoked one stops pulls at once). Enforced
 * in the hub's dataspace service layer, whichever connector is behind it.
 */

/** what the hub needs to know of the access body's permits (server/access-body, read only) */
export interface PermitRegister {
  /**
   * the ACTIVE permit, valid today, that names the organisation (DID) and one of the datasets, and whose data
   * form allows what the asset discloses: pseudonymised records only under a permit for pseudonymised data
   * (the application's `pseudonymised`; without it the permit is for anonymised data), aggregates under any
   */
  validFor(
    organisationDid: string,
    datasets: readonly string[],
    disclosure: Disclosure,
  ): Promise<PermitRef | undefined>;
  /**
   * the permit's state now (ACTIVE, REVOKED, EXPIRED), undefined for an unknown id; an ACTIVE permit for
   * anonymised data asked to release pseudonymised records (`disclosure`) is FOR_ANONYMISED_DATA_ONLY, so
   * that a contract made on it before negotiations checked the form (0116) releases none either
   */
  stateOf(permitId: string, disclosure: Disclosure): Promise<string | undefined>;
  /** those of `datasets` the permit names (none for an unknown id): the cohort records are drawn from */
  namedIn(permitId: string, datasets: readonly string[]): Promise<string[]>;
}

export interface PermitRef {
  id: string;
  pseudonymised: boolean;
}

export const NO_PERMIT_REGISTER = "No health data access body is available to check data permits against";

export const permitMissing = (organisation: string, assetId: string, datasets: readonly string[]) =>
  new ApiError(
    403,
    `No valid data permit of the health data access body names ${organisation} and the dataset of ${assetId}`,
    undefined,
    {
      permitRequired: { organisation, assetId, datasets },
      how: "Apply for a data permit (POST /api/compliance/applications) naming one of these datasets; once the access body grants it, negotiate again.",
    },
  );

/** PermitRegister.stateOf of a permit for anonymised data asked for pseudonymised records */
export const FOR_ANONYMISED_DATA_ONLY = "for anonymised data only";

/** whether a permit of its data form lets `disclosure` leave: records only for pseudonymised data, aggregates always (0116) */
export const formAllows = (permit: { pseudonymised: boolean }, disclosure: Disclosure) =>
  disclosure === "aggregate" || permit.pseudonymised;

/** a contract for pseudonymised records under a permit for anonymised data only (EHDS Art. 66(3), 68) */
export const permitForAnonymisedData = (
  permitId: string,
  organisation: string,
  assetId: string,
  datasets: readonly string[],
) =>
  new ApiError(
    403,
    `The data permit ${permitId} names ${organisation} and the dataset of ${assetId} for anonymised data only: ${assetId} delivers pseudonymised records`,
    undefined,
    {
      permitRequired: { organisation, assetId, datasets, pseudonymised: true },
      how: "Contract for an aggregate asset of the dataset, or apply for a data permit for pseudonymised data (POST /api/compliance/applications with pseudonymised: true and the reason in the summary) naming one of these datasets.",
    },
  );

/** the DID of a participant context's organisation (contexts are named by organisation slug) */
export function organisationOfContext(participantId: string): { did: string; name: string } | undefined {
  const org = findOrganisation(participantId);
  return org ? { did: org.did, name: org.displayName } : undefined;
}

const TABLE = "dataspace_contract_permits";

/** a negotiation the hub started on a data permit, with its agreement once known */
export interface ContractPermit {
  negotiationId: string;
  participantId: string;
  assetId: string;
  permitId: string;
  agreementId: string | null;
  /** what the asset's terms disclose, as the provider's offer carried them when the contract was asked for */
  disclosure: Disclosure;
  /** the asset's datasets, as that offer named them (rows of before: none known) */
  datasets: readonly string[];
}

/** which permit each negotiation started here rests on */
export type ContractPermits = Awaited<ReturnType<typeof createContractPermits>>;

export async function createContractPermits(rel: Relational) {
  await rel.migrate("dataspace-contract-permits-1", async (m) => {
    await m.schema
      .createTable(TABLE)
      .addColumn("negotiation_id", "text", (c) => c.primaryKey())
      .addColumn("participant_id", "text", (c) => c.notNull())
      .addColumn("asset_id", "text", (c) => c.notNull())
      .addColumn("permit_id", "text", (c) => c.notNull())
      .addColumn("agreement_id", "text")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
  });
  // the asset's disclosure as its terms said when the contract was asked for (decision 0065); rows of before: none
  await rel.migrate("dataspace-contract-permits-2", async (m) => {
    await m.schema.alterTable(TABLE).addColumn("disclosure", "text").execute();
  });
  // the asset's datasets as the offer named them, JSON (decision 0123: which of them were withdrawn since)
  await rel.migrate("dataspace-contract-permits-3", async (m) => {
    await m.schema.alterTable(TABLE).addColumn("datasets", "text").execute();
  });
  type Row = {
    negotiation_id: string;
    participant_id: string;
    asset_id: string;
    permit_id: string;
    agreement_id: string | null;
    disclosure: string | null;
    datasets: string | null;
  };
  /** the rows whose columns hold these values, by creation time */
  async function rowsWhere(values: Record<string, string>, order: "asc" | "desc"): Promise<ContractPermit[]> {
    let q = rel.db.selectFrom(TABLE).selectAll();
    for (const [column, value] of Object.entries(values)) q = q.where(column, "=", value);
    const rows = (await q.orderBy("created_at", order).execute()) as Row[];
    return rows.map((r) => ({
      negotiationId: r.negotiation_id,
      participantId: r.participant_id,
      assetId: r.asset_id,
      permitId: r.permit_id,
      agreementId: r.agreement_id,
      // a row without a known disclosure releases by the most restrictive terms
      disclosure: DISCLOSURES.includes(r.disclosure as Disclosure)
        ? (r.disclosure as Disclosure)
        : MOST_RESTRICTIVE,
      datasets: r.datasets ? (JSON.parse(r.datasets) as string[]) : [],
    }));
  }
  return {
    async record(r: Omit<ContractPermit, "agreementId">) {
      await rel.db
        .insertInto(TABLE)
        .values({
          negotiation_id: r.negotiationId,
          participant_id: r.participantId,
          asset_id: r.assetId,
          permit_id: r.permitId,
          agreement_id: null,
          disclosure: r.disclosure,
          datasets: JSON.stringify(r.datasets),
          created_at: Date.now(),
        })
        .execute();
    },
    /** the permits recorded for a participant's negotiations of an asset, newest first */
    of: (participantId: string, assetId?: string) =>
      rowsWhere({ participant_id: participantId, ...(assetId ? { asset_id: assetId } : {}) }, "desc"),
    byNegotiation: async (negotiationId: string) =>
      (await rowsWhere({ negotiation_id: negotiationId }, "asc"))[0]?.permitId,
    /** the negotiations (with their participant and agreement, once known) that rest on a permit, oldest first */
    byPermit: (permitId: string) => rowsWhere({ permit_id: permitId }, "asc"),
    /** every negotiation recorded for an asset, whoever asked (the graph bridge's look-up by agreement) */
    ofAsset: (assetId: string) => rowsWhere({ asset_id: assetId }, "desc"),
    async setAgreement(negotiationId: string, agreementId: string) {
      await rel.db
        .updateTable(TABLE)
        .set({ agreement_id: agreementId })
        .where("negotiation_id", "=", negotiationId)
        .execute();
    },
  };
}
