// The identity rules live in the part shared with the embedded dataspace (docs/decisions/0008).
export {
  slugOfDid,
  slugOfDisplayName,
  knownOrganisation,
  findOrganisationByName,
  tenantFor,
  resolveDisplayName,
  resolveRole,
  type TenantIdentity,
} from "../dataspace-protocol";
