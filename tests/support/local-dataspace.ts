import {
  startLocalDataspace,
  type LocalDataspace,
  type LocalDataspaceOptions,
} from "../../server/local-dataspace";
import { createClientCredentialsSource } from "../../server/dataspace/oauth-token";

/** the embedded dataspace as tests start it: kept in memory, quick steps, no data, errors ignored; `options` override */
export const startTestDataspace = (options: Partial<LocalDataspaceOptions> = {}): Promise<LocalDataspace> =>
  startLocalDataspace({
    dataDir: ":memory:",
    stepMs: 20,
    dataSource: async () => ({}),
    onError: () => {},
    ...options,
  });

/** a bearer token of the embedded dataspace's token endpoint, as the hub's clients get one */
export const bearerOf = async (local: LocalDataspace): Promise<string> =>
  `Bearer ${await createClientCredentialsSource({
    tokenUrl: local.tokenUrl,
    clientId: local.clientId,
    clientSecret: local.clientSecret,
    timeoutMs: 5000,
  }).token()}`;
