import type { EntryContext } from "@remix-run/node";
import { describe, expect, it } from "vitest";
import { readHandoffBeforeRender } from "./handoff.server";

/** a context as Remix hands it to the entry: only the two fields the reader touches */
function contextWith(chunks: Uint8Array[] | null, opts: { endless?: boolean } = {}): EntryContext {
  const stream =
    chunks &&
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const c of chunks) controller.enqueue(c);
        if (!opts.endless) controller.close();
      },
    });
  return { serverHandoffStream: stream ?? undefined, renderMeta: {} } as unknown as EntryContext;
}

describe("the single-fetch hand-off read before the render", () => {
  it("leaves the whole text as the first chunk and the end as the second, where StreamTransfer looks", async () => {
    const bytes = new TextEncoder().encode('[{"_1":2},"name","Zoë Müller"]\n');
    // split inside the two-byte "ë", so the decoder must carry it over
    const cut = bytes.indexOf(0xc3) + 1;
    const context = contextWith([bytes.subarray(0, cut), bytes.subarray(cut)]);
    // the text is answered too (the render cache's key: server/http/render-cache.ts)
    expect(await readHandoffBeforeRender(context, 1000)).toBe('[{"_1":2},"name","Zoë Müller"]\n');
    const cache = context.renderMeta!.streamCache!;
    expect(cache[0].result).toEqual({ done: false, value: '[{"_1":2},"name","Zoë Müller"]\n' });
    expect(cache[1].result).toEqual({ done: true, value: "" });
    await expect(cache[0]).resolves.toBeUndefined();
    // the stream is unlocked again: <RemixServer> takes its reader, and finds it read to the end
    const reader = context.serverHandoffStream!.getReader();
    expect((await reader.read()).done).toBe(true);
  });

  it("does nothing without a hand-off stream (single fetch off, or a resource answer)", async () => {
    const context = contextWith(null);
    await readHandoffBeforeRender(context, 1000);
    expect(context.renderMeta).toEqual({});
  });

  it("gives up with an error when the stream does not end in time (a deferred value that never settles)", async () => {
    const context = contextWith([new TextEncoder().encode("[1]\n")], { endless: true });
    await expect(readHandoffBeforeRender(context, 20)).rejects.toThrow(
      "the data of the page was not encoded within 20 ms",
    );
    expect(context.renderMeta!.streamCache).toBeUndefined();
  });
});
