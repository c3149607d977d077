import type { PermitRegister } from "../../server/dataspace/permits";

/** the one data permit the stand-in access body holds */
export const PERMIT_ID = "MEDREG-DP-TEST-0001";

/**
 * The access body as the dataspace tests without one need it: one ACTIVE data permit of every
 * organisation for every dataset. The permit rules themselves are tested against the real access
 * body (tests/api/dataspace-permits.test.ts).
 */
export const standInPermits: PermitRegister = {
  validFor: async () => ({ id: PERMIT_ID, pseudonymised: true }),
  stateOf: async (id) => (id === PERMIT_ID ? "ACTIVE" : undefined),
  namedIn: async (id, datasets) => (id === PERMIT_ID ? [...datasets] : []),
};
