// The identity rules live in the part shared with the embedded dataspace (docs/decisions/0008).
export * from "../dataspace-protocol/organisations";
