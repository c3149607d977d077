import { useLocation } from "@remix-run/react";
import { searchWithout } from "./filters";

/** query keys that are one-off notices, not part of the shareable search */
export const NOTICE_KEYS = ["withdrawn", "created", "confirm"];

/** the shareable part of the current query string ("?q=…&theme=…" or "") */
export function useCatalogueSearch(): string {
  return searchWithout(useLocation().search, ...NOTICE_KEYS);
}
