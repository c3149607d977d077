/** Where a dataspace's services listen, with its client credentials: what the embedded one hands the clients. */
export interface DataspaceEndpoints {
  readonly url: string;
  readonly managementUrl: string;
  readonly apiVersion: string;
  readonly tenantManagerUrl: string;
  readonly issuerUrl: string;
  readonly identityHubUrl: string;
  readonly tokenUrl: string;
  readonly protocolBaseUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** the issuer admin API's and the identity API's `x-api-key` (one super-user's, as IdentityHub 0.15.1 has) */
  readonly issuerApiKey: string;
  readonly identityHubApiKey: string;
  readonly issuerContextId: string;
  readonly issuerDid: string;
}
