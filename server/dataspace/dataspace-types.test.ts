import { expectTypeOf, it } from "vitest";
import type { Dataspace } from ".";
import type { AssetGroup } from "./merge";
import type { DemoRecord } from "./demo-records";
import type { Catalog, IdResponse } from "./upstream-schemas";

/** The dataspace offers each capability function with the types the function has (checked by tsc). */
it("answers what its functions answer, and takes the arguments they take", () => {
  type Answer<K extends keyof Dataspace> = Awaited<
    ReturnType<Extract<Dataspace[K], (...a: never[]) => unknown>>
  >;
  expectTypeOf<Answer<"fetchProviderCatalog">>().toEqualTypeOf<Catalog>();
  expectTypeOf<Answer<"startNegotiation">>().toEqualTypeOf<IdResponse>();
  expectTypeOf<Answer<"startTransfer">>().toEqualTypeOf<IdResponse | DemoRecord>();
  expectTypeOf<Answer<"createAsset">>().toEqualTypeOf<IdResponse>();
  expectTypeOf<Answer<"listAssetGroups">>().toEqualTypeOf<
    AssetGroup<Record<string, unknown> & { "@id": string }>[]
  >();
  // the agreement is a required argument (undefined: none), as releasedAnswer takes it
  expectTypeOf<Parameters<Dataspace["releasedAnswer"]>>().toEqualTypeOf<
    [string, string, string | undefined]
  >();
});
