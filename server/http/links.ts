import { z } from "zod";

/**
 * A link the product stores and shows (a result's publication URL, a dataset's licence, type and
 * conformance links): an absolute http or https URL, nothing else. `z.string().url()` alone takes any
 * scheme, `javascript:` and `data:` included, which a page would then put in an `href`.
 */
export const httpUrl = z
  .string()
  .trim()
  .max(2000)
  .url()
  .refine((u) => /^https?:\/\//i.test(u), "must be an http or https URL");
