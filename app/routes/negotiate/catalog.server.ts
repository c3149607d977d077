import type { CatalogSummary } from "../../../server/dataspace/catalog";

/**
 * A provider's DCAT catalogue as the negotiate view shows it: datasets with their offers, each
 * offer's ODRL rules in words, and the provider's DSP address to negotiate at.
 */

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => !!v && typeof v === "object" && !Array.isArray(v);
const str = (v: unknown) => (typeof v === "string" ? v : typeof v === "number" ? String(v) : "");
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v]);
const pick = (o: Rec, name: string) => o[name] ?? o[`odrl:${name}`];
const local = (v: string) => v.replace(/^.*[#/:]/, "");

function idOrValue(v: unknown): string {
  if (isRec(v)) return str(v["@id"]) || str(v["@value"]) || JSON.stringify(v);
  return str(v);
}

function constraintText(c: unknown): string {
  if (!isRec(c)) return "";
  const and = pick(c, "and") ?? pick(c, "or");
  if (and) return list(and).map(constraintText).filter(Boolean).join(" and ");
  const left = local(idOrValue(pick(c, "leftOperand")));
  const op = local(idOrValue(pick(c, "operator")));
  const right = list(pick(c, "rightOperand")).map(idOrValue).join(", ");
  return [left, op, right].filter(Boolean).join(" ");
}

function ruleText(r: unknown): string {
  if (!isRec(r)) return "";
  const action = local(idOrValue(pick(r, "action"))) || "use";
  const constraints = list(pick(r, "constraint")).map(constraintText).filter(Boolean);
  return constraints.length ? `${action}, provided ${constraints.join("; ")}` : action;
}

function offerView(id: string, policy: Rec) {
  return {
    id,
    permissions: list(pick(policy, "permission")).map(ruleText).filter(Boolean),
    prohibitions: list(pick(policy, "prohibition")).map(ruleText).filter(Boolean),
    obligations: list(pick(policy, "obligation")).map(ruleText).filter(Boolean),
    assigner: idOrValue(pick(policy, "assigner")),
    policy,
  };
}

export type CatalogView = ReturnType<typeof catalogView>;

export function catalogView(summary: CatalogSummary, fallbackDid: string) {
  return {
    providerDid: summary.providerDid ?? fallbackDid,
    endpointUrl: summary.endpointUrl ?? "",
    datasets: summary.datasets.map((d) => ({
      id: d.id,
      name: d.name,
      description: d.description,
      contentType: str(d.raw.contenttype) || str(d.raw["edc:contenttype"]) || str(d.raw["dct:format"]),
      offers: d.offers.map((o) => offerView(o.id, o.policy)),
    })),
  };
}
