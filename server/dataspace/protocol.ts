// The wire constants live in the part shared with the embedded dataspace (docs/decisions/0008).
export {
  MANAGEMENT_CONTEXT,
  ODRL_NAMESPACE,
  DCAT_NAMESPACE,
  DSPACE_NAMESPACE,
  DSP_VERSION,
  DSP_PROTOCOL,
  TRANSFER_TYPES,
  DEFAULT_TRANSFER_TYPE,
  querySpec,
  term,
  termString,
  edcPrefixOf,
  asArray,
  type QuerySpec,
} from "../dataspace-protocol";
