/**
 * The dataspace protocol shared by the clients (server/dataspace) and the embedded dataspace
 * (server/local-dataspace), its public entry (docs/decisions/0015): the DSP/EDC wire constants and
 * query shapes, the organisations' identity rules and the transfer context id. It knows neither side
 * and loads no client.
 */
export * from "./protocol";
export * from "./organisations";
export * from "./context-id";
export * from "./asset-terms";
export type * from "./endpoints";
