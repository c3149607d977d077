/** The catalogue's public face for other capabilities and the views' loaders (docs/decisions/0015). */
export { publisherOf } from "./publisher";
export type { CatalogueService } from "./service";
