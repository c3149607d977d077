/**
 * Layer l1: the marketplace. The five organisations as participants, the data products the
 * holders offer (each described by a catalogue dataset and carrying an ODRL offer), the
 * contracts users agreed with holders (each with its ODRL agreement) and the access body's
 * data permits approving them.
 */
import { datasetId, datasetTitle } from "./catalogue";
import { ORGANISATIONS, organisation, participantId } from "./organisations";
import { REFERENCE_DAY, STREAM } from "./population";
import { Prng, isoDate, isoDateTime } from "./prng";
import { type RecordBuffer } from "./records";

/** EHDS Art. 53 purposes, as ODRL purpose values */
const PURPOSE = {
  research: "scientificResearch",
  safety: "healthCareAndMedicinalProductSafety",
  statistics: "officialStatistics",
} as const;
type Purpose = (typeof PURPOSE)[keyof typeof PURPOSE];
/** a purpose as a research programme's title names it (the access body's application titles, seed-data.ts) */
const PURPOSE_TITLE: Record<Purpose, string> = {
  scientificResearch: "Research",
  healthCareAndMedicinalProductSafety: "Public health and safety",
  officialStatistics: "Statistics",
};

// prettier-ignore
const PRODUCTS = [
  { dataset: "alphaklinik-diabetes", holder: "alphaklinik-berlin", title: "Type 2 diabetes real-world data", contentType: "application/fhir+json", purposes: [PURPOSE.research] },
  { dataset: "alphaklinik-respiratory", holder: "alphaklinik-berlin", title: "Respiratory disease real-world data", contentType: "application/fhir+json", purposes: [PURPOSE.research] },
  { dataset: "alphaklinik-fluoroquinolone-safety", holder: "alphaklinik-berlin", title: "Fluoroquinolone safety data", contentType: "application/fhir+json", purposes: [PURPOSE.safety, PURPOSE.research] },
  { dataset: "alphaklinik-mental-health", holder: "alphaklinik-berlin", title: "Mental health cohort data", contentType: "application/fhir+json", purposes: [PURPOSE.research] },
  { dataset: "lmc-omop", holder: "lmc", title: "OMOP CDM research extract", contentType: "text/csv", purposes: [PURPOSE.research, PURPOSE.statistics] },
  { dataset: "lmc-cardiovascular", holder: "lmc", title: "Cardiovascular cohort data", contentType: "application/fhir+json", purposes: [PURPOSE.research] },
  { dataset: "lmc-urinary-infections", holder: "lmc", title: "Urinary tract infection and antibiotic data", contentType: "application/fhir+json", purposes: [PURPOSE.safety, PURPOSE.research] },
  { dataset: "lmc-renal-metabolic", holder: "lmc", title: "Renal and metabolic cohort data", contentType: "text/csv", purposes: [PURPOSE.research, PURPOSE.statistics] },
] as const;

type ContractState = {
  negotiation: "FINALIZED" | "AGREED" | "TERMINATED";
  permit: "GRANTED" | "PENDING" | "REVOKED";
};

// prettier-ignore
const CONTRACTS: readonly { dataset: string; consumer: string; purpose: Purpose; state: ContractState }[] = [
  { dataset: "alphaklinik-diabetes", consumer: "pharmaco", purpose: PURPOSE.research, state: { negotiation: "FINALIZED", permit: "GRANTED" } },
  { dataset: "alphaklinik-fluoroquinolone-safety", consumer: "pharmaco", purpose: PURPOSE.safety, state: { negotiation: "FINALIZED", permit: "GRANTED" } },
  { dataset: "lmc-urinary-infections", consumer: "pharmaco", purpose: PURPOSE.safety, state: { negotiation: "FINALIZED", permit: "GRANTED" } },
  { dataset: "lmc-cardiovascular", consumer: "irs", purpose: PURPOSE.research, state: { negotiation: "FINALIZED", permit: "GRANTED" } },
  { dataset: "lmc-omop", consumer: "irs", purpose: PURPOSE.statistics, state: { negotiation: "AGREED", permit: "PENDING" } },
  { dataset: "alphaklinik-mental-health", consumer: "irs", purpose: PURPOSE.research, state: { negotiation: "TERMINATED", permit: "REVOKED" } },
];

const PERMIT_LEGAL_BASIS = "Regulation (EU) 2025/327 (EHDS) Art. 68 (data permit)";
const json = (value: unknown) => JSON.stringify(value);

const PROHIBITIONS = json([{ action: "distribute" }, { action: "ehds:reIdentify" }]);

function purposeConstraint(purposes: readonly string[]) {
  return { leftOperand: "purpose", operator: "isAnyOf", rightOperand: purposes };
}

/**
 * `anchorDay`: the day the contracts, HDAB approvals and permits are dated from — the seeding day on
 * a live start, so a new installation always shows permits in force and applications under
 * assessment rather than ones that aged since the generator was written (default: the population's
 * reference day, for exports that must not depend on the day).
 */
export function writeMarketplace(out: RecordBuffer, seed: number, anchorDay: number = REFERENCE_DAY): void {
  const rng = new Prng(seed, STREAM.marketplace);
  const medreg = organisation("medreg");

  for (const org of ORGANISATIONS) {
    out.node("Participant", participantId(org.slug), {
      did: org.did,
      slug: org.slug,
      displayName: org.displayName,
      organization: org.displayName,
      role: org.role,
      country: org.country,
      ehdsParticipantType: org.ehdsParticipantType,
      dspEndpoint: org.dspEndpoint,
    });
  }

  const baseline = out.node("OdrlPolicy", "policy-set-ehds-secondary-use", {
    uid: `https://medreg.de/policies/ehds-secondary-use`,
    policyType: "Set",
    assigner: medreg.did,
    assignee: null,
    target: null,
    purpose: Object.values(PURPOSE).join(" "),
    permission: json([
      {
        action: "use",
        constraint: [
          purposeConstraint(Object.values(PURPOSE)),
          { leftOperand: "spatial", operator: "eq", rightOperand: "secureProcessingEnvironment" },
        ],
      },
    ]),
    prohibition: PROHIBITIONS,
    obligation: json([
      { action: "anonymize" },
      {
        action: "inform",
        constraint: [{ leftOperand: "event", operator: "eq", rightOperand: "resultPublication" }],
      },
    ]),
  });
  out.edge(baseline, "ISSUED_BY", participantId(medreg.slug));

  for (const p of PRODUCTS) {
    const holder = organisation(p.holder);
    const assetId = `asset-${p.dataset}`;
    const product = out.node("DataProduct", `product-${p.dataset}`, {
      title: p.title,
      assetId,
      version: "1.0.0",
      contentType: p.contentType,
      transferType: "HttpData-PULL",
      provider: holder.slug,
      providerDid: holder.did,
      status: "published",
    });
    const offer = out.node("OdrlPolicy", `policy-offer-${p.dataset}`, {
      uid: `${holder.dspEndpoint}/policies/offer-${p.dataset}`,
      policyType: "Offer",
      assigner: holder.did,
      assignee: null,
      target: assetId,
      purpose: p.purposes.join(" "),
      permission: json([{ action: "use", constraint: [purposeConstraint(p.purposes)] }]),
      prohibition: PROHIBITIONS,
      obligation: json([
        {
          action: "delete",
          constraint: [{ leftOperand: "elapsedTime", operator: "lteq", rightOperand: "P2Y" }],
        },
      ]),
    });
    out.edge(participantId(holder.slug), "OFFERS", product);
    out.edge(product, "DESCRIBED_BY", datasetId(p.dataset));
    out.edge(product, "HAS_POLICY", offer);
    out.edge(offer, "REFINES", baseline);
  }

  CONTRACTS.forEach((c, i) => {
    const number = String(i + 1).padStart(4, "0");
    const product = PRODUCTS.find((p) => p.dataset === c.dataset);
    if (!product) throw new Error(`contract for unknown product ${c.dataset}`);
    const provider = organisation(product.holder);
    const consumer = organisation(c.consumer);
    const signedDay = anchorDay - rng.int(30, 300);
    const validUntil = isoDate(signedDay + 2 * 365);
    const signed = c.state.negotiation !== "AGREED";

    const agreement = out.node("OdrlPolicy", `policy-agreement-${number}`, {
      uid: `urn:uuid:${rng.uuid()}`,
      policyType: "Agreement",
      assigner: provider.did,
      assignee: consumer.did,
      target: `asset-${c.dataset}`,
      purpose: c.purpose,
      permission: json([
        {
          action: "use",
          constraint: [
            purposeConstraint([c.purpose]),
            { leftOperand: "dateTime", operator: "lteq", rightOperand: validUntil },
          ],
        },
      ]),
      prohibition: PROHIBITIONS,
      obligation: json([
        {
          action: "delete",
          constraint: [{ leftOperand: "dateTime", operator: "gt", rightOperand: validUntil }],
        },
      ]),
    });
    const contract = out.node("Contract", `contract-${number}`, {
      agreementId: `urn:uuid:${rng.uuid()}`,
      negotiationState: c.state.negotiation,
      status:
        c.state.negotiation === "FINALIZED"
          ? "active"
          : c.state.negotiation === "AGREED"
            ? "awaitingPermit"
            : "terminated",
      assetId: `asset-${c.dataset}`,
      providerDid: provider.did,
      consumerDid: consumer.did,
      purpose: c.purpose,
      signedAt: signed ? isoDateTime(signedDay, rng.int(8 * 60, 17 * 60)) : null,
      validUntil,
    });
    out.edge(contract, "PROVIDER", participantId(provider.slug));
    out.edge(contract, "CONSUMER", participantId(consumer.slug));
    out.edge(contract, "GOVERNS", `product-${c.dataset}`);
    out.edge(contract, "HAS_POLICY", agreement);

    // a pending application was filed recently (it is still under assessment); the others before signing
    const lag = rng.int(20, 60);
    const applicationDay = c.state.permit === "PENDING" ? anchorDay - lag : signedDay - lag;
    const decisionDay = c.state.permit === "PENDING" ? null : applicationDay + rng.int(10, 19);
    const approval = out.node("HDABApproval", `approval-${number}`, {
      permitNumber: `MEDREG-DP-${isoDate(decisionDay ?? applicationDay).slice(0, 4)}-${number}`,
      // the research programme a patient sees (0119): its purpose and the dataset of the contract it approves
      title: `${PURPOSE_TITLE[c.purpose]}: ${datasetTitle(c.dataset)}`,
      status: c.state.permit,
      applicant: consumer.slug,
      applicationDate: isoDate(applicationDay),
      decisionDate: decisionDay === null ? null : isoDate(decisionDay),
      validUntil: c.state.permit === "GRANTED" ? validUntil : null,
      purpose: c.purpose,
      legalBasis: PERMIT_LEGAL_BASIS,
      processingEnvironment: "MedReg secure processing environment",
    });
    out.edge(approval, "APPROVES", contract);
    out.edge(approval, "ISSUED_BY", participantId(medreg.slug));
  });
}
