import { ApiError, badGateway } from "../http/errors";
import { checkId, invalidIdMessage } from "../http/ids";
import { presentString } from "../http/handler";
import { mergeAssetGroups, mergeById, type AssetGroup } from "./merge";
import {
  EDC_NAMESPACE,
  edcPrefixOf,
  isObject,
  MANAGEMENT_CONTEXT,
  offerDefinitionId,
  offerSelector,
  termString,
  defaultDatasets,
  DISCLOSURES,
  MOST_RESTRICTIVE,
  termsProperties,
  type AssetTerms,
  type Disclosure,
} from "../dataspace-protocol";
import { audited, orNull, remainingDeadline, settle, type DataspaceRuntime } from "./runtime";
import { callerMistake, describeUpstream, liveOrNull, notFoundOr502, or502 } from "./failures";
import { isConflict, isNotFound } from "./upstream-http";
import type { ConnectorAsset, ContractDefinition, IdResponse, ParticipantContext } from "./upstream-schemas";
import { invalidField, missingFields } from "../http/field-errors";
import { createKeptByInputs, EVERYONE } from "../http/kept/kept";
import { bridgeAddressFor } from "./graph-bridge";
import { organisationOfContext } from "./permits";

/** Data assets (spec section 4, Assets): normalised lists per context or grouped, and registration. */

export const ASSET_FIELDS_REQUIRED = "participantId, assetId, and name are required";
const LIST_FAILED = "Failed to list assets";
const CREATE_FAILED = "Failed to create asset";
const ASSET_MISTAKES = {
  notFound: "The participant context is not known to the connector",
  conflict: "An asset with this assetId exists already, or the participant context is not active",
  invalid: "The connector refused the asset as invalid",
};

/**
 * `name` defaults to the `@id`, `description` and `contenttype` to ""; the same three values also
 * under the connector-namespace prefix (`edc:name`, ...); every other field passed through.
 */
export function normaliseAsset(raw: ConnectorAsset) {
  const prefix = edcPrefixOf(raw["@context"]);
  const props = raw.properties;
  const read = (k: string) =>
    termString(raw, k, undefined, prefix) ?? termString(props, k, undefined, prefix);
  const name = read("name") ?? raw["@id"];
  // the code of a graph bridge address is for the provider's data plane only, never in a list
  const dataAddress = isObject(raw.dataAddress) ? withoutCode(raw.dataAddress) : raw.dataAddress;
  const description = read("description") ?? "";
  const contenttype = read("contenttype") ?? "";
  return {
    ...raw,
    ...(raw.dataAddress === undefined ? {} : { dataAddress }),
    name,
    description,
    contenttype,
    [`${prefix}:name`]: name,
    [`${prefix}:description`]: description,
    [`${prefix}:contenttype`]: contenttype,
  };
}

const withoutCode = (address: Record<string, unknown>): Record<string, unknown> => {
  const copy = { ...address };
  for (const k of Object.keys(copy))
    if (k === "authCode" || k.endsWith(":authCode") || k.endsWith("/authCode")) delete copy[k];
  return copy;
};

/** The DID of a participant context: `participantId`, else `identity`. */
export function didOfContext(ctx: ParticipantContext): string {
  return ctx.participantId ?? ctx.identity ?? "";
}

/**
 * The DID a participant context acts under: its context's at the connector, else its built-in
 * organisation's, else the id itself when it is a DID (a connector without participant contexts,
 * EDC 0.15, names the participant by its DID); undefined when none is known.
 */
export async function didOfParticipant(
  rt: DataspaceRuntime,
  participantId: string,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const ctx = await orNull(rt.connector.getParticipantContext(participantId, signal));
  return (
    (ctx ? didOfContext(ctx) : "") ||
    organisationOfContext(participantId)?.did ||
    (participantId.startsWith("did:") ? participantId : undefined)
  );
}

/** Assets aggregate over ACTIVATED contexts; a context without a state counts as ACTIVATED. */
const activeForAssets = (ctx: ParticipantContext) => ctx.state === undefined || ctx.state === "ACTIVATED";

export async function listAssetsOf(
  rt: DataspaceRuntime,
  participantId: string,
): Promise<Record<string, unknown>[]> {
  const demoGroup = rt.demoRecords
    ? rt.demo.assetGroups().find((g) => g.participantId === participantId)
    : undefined;
  // one upstream call with its own time-out: no deadline armed per request (see remainingDeadline)
  const listed = await liveOrNull(() => rt.connector.listAssets(participantId), rt.demoRecords, LIST_FAILED);
  if (!listed) return demoGroup?.assets ?? [];
  const live = listed.map(normaliseAsset);
  return demoGroup ? mergeById(live, demoGroup.assets) : live;
}

/**
 * What the grouped list is made of: the upstream answers as they came (the read cache hands out the
 * same frozen arrays while they are valid), or null for the context list when it failed; per active
 * context, its asset list or null when that lookup failed.
 */
async function assetGroupInputs(rt: DataspaceRuntime) {
  // no deadline armed per request: the context list has its own time-out, the lists what is left of it
  const startedAt = Date.now();
  const contexts = await liveOrNull(
    () => rt.connector.listParticipantContexts(),
    rt.demoRecords,
    LIST_FAILED,
  );
  if (!contexts) return { contexts: null, assets: [] };
  const deadline = remainingDeadline(rt, startedAt);
  const assets = await Promise.all(
    contexts.filter(activeForAssets).map((ctx) => orNull(rt.connector.listAssets(ctx["@id"], deadline))),
  );
  return { contexts, assets };
}

type GroupInputs = Awaited<ReturnType<typeof assetGroupInputs>>;
type Group = AssetGroup<Record<string, unknown> & { "@id": string }>;

function groupsOf(rt: DataspaceRuntime, inputs: GroupInputs): Group[] {
  const demo = rt.demoRecords ? rt.demo.assetGroups() : [];
  if (!inputs.contexts) return demo;
  const live = inputs.contexts.filter(activeForAssets).map((ctx, i) => ({
    participantId: ctx["@id"],
    identity: didOfContext(ctx),
    assets: inputs.assets[i]?.map(normaliseAsset) ?? [],
  }));
  return mergeAssetGroups(live, demo);
}

// pure: the views import this module for its parsers, and their client bundle must drop it
const keptGroups = /* @__PURE__ */ createKeptByInputs<Group[]>();

/**
 * Every participant's offers, grouped: kept, frozen (read it only), per set of its inputs (GroupInputs,
 * the bundled demonstration records; server/http/kept `createKeptByInputs`).
 */
export async function listAssetGroups(rt: DataspaceRuntime): Promise<Group[]> {
  const inputs = await assetGroupInputs(rt);
  return keptGroups(EVERYONE, [inputs.contexts, rt, rt.demoRecords, ...inputs.assets], () =>
    groupsOf(rt, inputs),
  );
}

export type AssetInput = ReturnType<typeof parseAssetInput>;

export const DATASET_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
export const MAX_DATASETS = 20;
export const DATASETS_TEXT = `datasets must be a list of 1 to ${MAX_DATASETS} catalogue dataset identifiers`;

/**
 * The terms of an asset a data holder registers (POST /api/assets): `disclosure` one of
 * `aggregate`/`pseudonymised` (default: aggregate, the most restrictive), `datasets` a list of
 * catalogue dataset ids (default: the dataset of the asset's name). Anything else: 400.
 */
export function parseAssetTerms(body: Record<string, unknown>, assetId: string): AssetTerms {
  const d = body.disclosure;
  if (d !== undefined && !DISCLOSURES.includes(d as Disclosure))
    throw invalidField("disclosure", `disclosure must be one of ${DISCLOSURES.join(", ")}`);
  const ds = body.datasets;
  if (
    ds !== undefined &&
    (!Array.isArray(ds) ||
      ds.length === 0 ||
      ds.length > MAX_DATASETS ||
      !ds.every((x) => typeof x === "string" && DATASET_ID.test(x)))
  )
    throw invalidField("datasets", DATASETS_TEXT);
  return {
    disclosure: (d as Disclosure | undefined) ?? MOST_RESTRICTIVE,
    datasets: ds ? [...new Set(ds as string[])] : defaultDatasets(assetId),
  };
}

export function parseAssetInput(body: Record<string, unknown>) {
  const participantId = presentString(body.participantId);
  const assetId = presentString(body.assetId);
  const name = presentString(body.name);
  if (!participantId || !assetId || !name)
    throw missingFields({ participantId, assetId, name }, ASSET_FIELDS_REQUIRED);
  const da = body.dataAddress;
  if (da !== undefined && !isObject(da))
    throw invalidField("dataAddress", "dataAddress must be an object with @type, type and baseUrl");
  return {
    participantId,
    assetId,
    name,
    description: typeof body.description === "string" ? body.description : "",
    contentType: presentString(body.contentType) ?? "application/json",
    dataAddress: da as Record<string, unknown> | undefined,
    // what the asset is drawn from and discloses, carried as its metadata at the connector
    terms: parseAssetTerms(body, assetId),
    // the participant's policy definition the asset is offered under (decision 0108); none: registered only
    policyId: policyIdOf(body.policyId),
  };
}

/** an optional id: blank counts as absent; anything else but an id is a 400 */
function policyIdOf(value: unknown): string | undefined {
  if (value !== undefined && value !== null && typeof value !== "string")
    throw invalidField("policyId", invalidIdMessage("policyId"));
  const id = presentString(value);
  return id === undefined ? undefined : checkId(id, "policyId");
}

/**
 * The Asset registered with the connector: fixed version 1.0.0, its terms among its properties; by
 * default an HttpData address at the graph bridge with the asset's own code (graph-bridge.ts).
 */
export function buildAsset(
  rt: Pick<DataspaceRuntime, "graphBridgeUrl" | "releaseSecret">,
  input: AssetInput,
): Record<string, unknown> {
  return {
    "@context": [MANAGEMENT_CONTEXT],
    "@type": "Asset",
    "@id": input.assetId,
    properties: {
      name: input.name,
      description: input.description,
      contenttype: input.contentType,
      version: "1.0.0",
      ...termsProperties(input.terms),
    },
    dataAddress: input.dataAddress
      ? { "@type": "DataAddress", ...input.dataAddress }
      : bridgeAddressFor(rt, input.participantId, input.assetId),
  };
}

export const DATASETS_NOT_HELD = (participantId: string, datasets: readonly string[]) =>
  `datasets must be catalogue datasets that ${participantId} holds: ${datasets.join(", ")} ${datasets.length === 1 ? "is" : "are"} not`;

/**
 * An asset is drawn only from datasets its participant holds in the catalogue (decision 0096): one
 * another organisation holds is refused, and so is one the catalogue has none of, unless it is the
 * default dataset of the asset's name (not published yet, it gives no records). 400, nothing written.
 */
async function assertDatasetsHeld(rt: DataspaceRuntime, input: AssetInput): Promise<void> {
  const holderOf = rt.datasetHolder;
  if (!holderOf) return;
  const defaults = defaultDatasets(input.assetId);
  const holders = await Promise.all(input.terms.datasets.map(holderOf));
  const notHeld = input.terms.datasets.filter((d, i) =>
    holders[i] === undefined ? !defaults.includes(d) : holders[i] !== input.participantId,
  );
  if (notHeld.length) throw invalidField("datasets", DATASETS_NOT_HELD(input.participantId, notHeld));
}

export const POLICY_NOT_HELD = (participantId: string, policyId: string) =>
  `policyId must be a policy definition that ${participantId} holds at its connector: ${policyId} is not`;

const EDC_ID = `${EDC_NAMESPACE}id`;

/**
 * The ContractDefinition that offers one asset (EDC management API v4beta/v3 body): access and contract
 * policy the participant's policy definition `policyId`, the asset selected by its id.
 */
export function buildContractDefinition(assetId: string, policyId: string): Record<string, unknown> {
  return {
    "@context": [MANAGEMENT_CONTEXT],
    "@type": "ContractDefinition",
    "@id": offerDefinitionId(assetId),
    accessPolicyId: policyId,
    contractPolicyId: policyId,
    assetsSelector: offerSelector(assetId),
  };
}

/**
 * The policy an asset is to be offered under is a policy definition of its participant at the connector
 * (EDC does not check it when a contract definition names it): 400 otherwise, before anything is written.
 * A 404 may mean the context is unknown to the connector: then the asset's own 404. The read failing:
 * the spec's 502 with `failed`, the text of the write it precedes.
 */
async function assertPolicyHeld(
  rt: DataspaceRuntime,
  participantId: string,
  policyId: string,
  failed: string,
) {
  try {
    await rt.connector.getPolicyDefinition(participantId, policyId);
  } catch (e) {
    if (!isNotFound(e)) throw badGateway(failed, describeUpstream(e));
    if (!(await orNull(rt.connector.getParticipantContext(participantId))))
      throw new ApiError(404, ASSET_MISTAKES.notFound);
    throw invalidField("policyId", POLICY_NOT_HELD(participantId, policyId));
  }
}

/** the hub's offer of a registered asset: its contract definition `<assetId>-offer` under `policyId` */
const offer = (rt: DataspaceRuntime, participantId: string, assetId: string, policyId: string) =>
  rt.connector.createContractDefinition(participantId, buildContractDefinition(assetId, policyId));

/** what an offer's audit entry adds to its target */
const offeredAs = (assetId: string, policyId: string) =>
  `offered as ${offerDefinitionId(assetId)} under ${policyId}`;

/**
 * Offers a registered asset under its policy; when the connector does not take the contract definition,
 * the asset is removed again (and the definition, unless the connector said its id was taken: that one is
 * not the hub's to remove), so that nothing is left half made; then the spec's 502 with what happened.
 */
async function offerOrUndo(rt: DataspaceRuntime, input: AssetInput, policyId: string): Promise<void> {
  const { participantId, assetId } = input;
  const definitionId = offerDefinitionId(assetId);
  try {
    await offer(rt, participantId, assetId, policyId);
  } catch (e) {
    // a 409: the id is taken, by a definition of the hub's name that is perhaps not the hub's
    if (!isConflict(e)) await settle(rt.connector.deleteContractDefinition(participantId, definitionId));
    const undone = await settle(rt.connector.deleteAsset(participantId, assetId));
    const why = `the connector did not take the contract definition ${definitionId} (${describeUpstream(e)})`;
    throw badGateway(
      CREATE_FAILED,
      undone.ok
        ? `${why}; the asset was removed again`
        : `${why}; removing the asset again failed too (${describeUpstream(undone.error)}): it is registered but not offered`,
    );
  }
}

/**
 * Registers an asset; with a `policyId`, also offers it (decision 0108): the policy is checked first (400,
 * nothing written), then asset and contract definition are written, both or neither (offerOrUndo). One
 * audit entry: the registration, with the offer's definition and policy when there is one.
 */
export async function createAsset(
  rt: DataspaceRuntime,
  input: AssetInput,
  actor = "system",
): Promise<IdResponse> {
  await assertDatasetsHeld(rt, input);
  const { policyId } = input;
  if (policyId) await assertPolicyHeld(rt, input.participantId, policyId, CREATE_FAILED);
  return audited(
    rt,
    { action: "asset.create", actor, target: `${input.participantId}: ${input.assetId}` },
    async () => {
      const created = await rt.connector.createAsset(input.participantId, buildAsset(rt, input));
      if (policyId) await offerOrUndo(rt, input, policyId);
      return created;
    },
    // the caller's mistake (unknown context, duplicate assetId) is a 4xx; the spec's 502 is the connector's failure
    (e) => (e instanceof ApiError ? e : (callerMistake(e, ASSET_MISTAKES) ?? badGateway(CREATE_FAILED))),
    policyId ? () => offeredAs(input.assetId, policyId) : undefined,
  );
}

/** One contract definition that offers an asset: its id, its contract policy, whether it is the hub's offer. */
export interface AssetOffer {
  definitionId: string;
  policyId: string;
  byHub: boolean;
}

const OFFERS_FAILED = "Failed to list offers";

/**
 * The asset ids a contract definition selects, as far as the hub reads its selector: an empty selector
 * selects every asset of the participant (as EDC reads it); else
 * every criterion is on the asset's id (`https://w3id.org/edc/v0.0.1/ns/id`, `edc:id` or `id`) with `=` and
 * one id (as buildContractDefinition writes it) or `in` and a list of ids, and the selector picks the ids
 * they all allow. Any other criterion (on a property, another operator): undefined, not read as an offer.
 */
function selectedAssets(def: ContractDefinition): "every" | string[] | undefined {
  let ids: string[] | undefined;
  for (const c of def.assetsSelector === undefined ? [] : [def.assetsSelector].flat()) {
    if (![EDC_ID, "edc:id", "id"].includes(String(c.operandLeft))) return undefined;
    const right = c.operandRight;
    const allowed =
      c.operator === "=" && typeof right === "string"
        ? [right]
        : c.operator === "in" && Array.isArray(right)
          ? right.filter((x): x is string => typeof x === "string")
          : undefined;
    if (!allowed) return undefined;
    ids = ids ? ids.filter((id) => allowed.includes(id)) : allowed;
  }
  return ids ?? "every";
}

/**
 * Which of `assetIds` the participant's connector offers, and under which policies, by asset id: the
 * contract definitions of its context whose selector picks the asset (selectedAssets), each with its
 * contract policy; the hub's own offer is the definition `<assetId>-offer` (decision 0111). Plain data, as
 * static mode records answers. The connector failing: the spec's 502.
 */
export async function offersOf(
  rt: DataspaceRuntime,
  participantId: string,
  assetIds: readonly string[],
): Promise<Record<string, AssetOffer[]>> {
  const definitions = await or502(() => rt.connector.listContractDefinitions(participantId), OFFERS_FAILED);
  const read = definitions.map((d) => ({ d, selected: selectedAssets(d) }));
  const offers = (assetId: string) =>
    read
      .filter(({ selected }) => selected === "every" || selected?.includes(assetId))
      .map(({ d }) => ({
        definitionId: d["@id"],
        policyId: d.contractPolicyId ?? d.accessPolicyId ?? "",
        byHub: d["@id"] === offerDefinitionId(assetId),
      }));
  return Object.fromEntries(assetIds.map((id) => [id, offers(id)]));
}

const OFFER_FAILED = "Failed to offer asset";
const WITHDRAW_FAILED = "Failed to withdraw offer";
export const POLICY_REQUIRED = "policyId is required";
export const ASSET_NOT_HELD = (participantId: string, assetId: string) =>
  `${participantId} has no asset ${assetId} at its connector`;
export const OFFERED_ALREADY = (assetId: string) =>
  `The hub offers ${assetId} already (${offerDefinitionId(assetId)}): withdraw that offer first`;
export const NO_HUB_OFFER = (assetId: string) =>
  `The hub has no offer of ${assetId} (${offerDefinitionId(assetId)}) to withdraw`;

/**
 * Offers an asset registered without one (decision 0111): the policy checked as on registration (400,
 * nothing written), the asset read at the connector (404 when it has none), then the hub's definition
 * `<assetId>-offer`; 409 when the connector holds that one already. Audited as `asset.offer`.
 */
export async function offerAsset(
  rt: DataspaceRuntime,
  participantId: string,
  assetId: string,
  policyIdValue: unknown,
  actor = "system",
): Promise<IdResponse> {
  checkId(assetId, "assetId");
  const policyId = policyIdOf(policyIdValue);
  if (!policyId) throw missingFields({ policyId }, POLICY_REQUIRED);
  await assertPolicyHeld(rt, participantId, policyId, OFFER_FAILED);
  await rt.connector.getAsset(participantId, assetId).catch((e: unknown) => {
    throw notFoundOr502(e, ASSET_NOT_HELD(participantId, assetId), OFFER_FAILED);
  });
  return audited(
    rt,
    { action: "asset.offer", actor, target: `${participantId}: ${assetId}` },
    () => offer(rt, participantId, assetId, policyId),
    (e) =>
      isConflict(e)
        ? new ApiError(409, OFFERED_ALREADY(assetId))
        : badGateway(OFFER_FAILED, describeUpstream(e)),
    () => offeredAs(assetId, policyId),
  );
}

/**
 * Withdraws the hub's offer of an asset: deletes its definition `<assetId>-offer` (404 when there is none).
 * Definitions made at the connector outside the hub are not the hub's to withdraw. Audited as
 * `asset.offer.withdraw`.
 */
export async function withdrawOffer(
  rt: DataspaceRuntime,
  participantId: string,
  assetId: string,
  actor = "system",
): Promise<void> {
  checkId(assetId, "assetId");
  const definitionId = offerDefinitionId(assetId);
  await audited(
    rt,
    { action: "asset.offer.withdraw", actor, target: `${participantId}: ${assetId}` },
    () => rt.connector.deleteContractDefinition(participantId, definitionId),
    (e) => notFoundOr502(e, NO_HUB_OFFER(assetId), WITHDRAW_FAILED),
    () => `withdrew ${definitionId}`,
  );
}
