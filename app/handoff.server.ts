import type { EntryContext } from "@remix-run/node";

type StreamCache = NonNullable<NonNullable<EntryContext["renderMeta"]>["streamCache"]>;

/** one settled entry of Remix's stream cache: a resolved promise that carries its result, as StreamTransfer leaves it */
function settled(result: { done: boolean; value: string }): StreamCache[number] {
  return Object.assign(Promise.resolve(), { result });
}

/**
 * Reads the single-fetch hand-off (the loaders' data, encoded by Remix for the browser) to its end
 * before the document is rendered, and leaves it where `<RemixServer>`'s StreamTransfer looks before it
 * reads the stream itself (`renderMeta.streamCache`): all of it as the first chunk, then the end. The
 * render then never waits on the stream, so the document can be rendered in one synchronous pass
 * (app/entry.server.tsx). The browser gets the same text in one script instead of one per chunk.
 * Answers the text (null without a hand-off). Rejects when the stream has not ended within `timeoutMs` (a loader's deferred value that never
 * settles): Remix then answers with the error document.
 */
export async function readHandoffBeforeRender(
  context: EntryContext,
  timeoutMs: number,
): Promise<string | null> {
  const stream = context.serverHandoffStream;
  if (!stream) return null;
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const error = () => new Error(`the data of the page was not encoded within ${timeoutMs} ms`);
  let expired = false;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      expired = true;
      reject(error());
      // a read still pending ends with `done`; `expired` says it was not the stream's own end
      void reader.cancel(error()).catch(() => undefined);
    }, timeoutMs);
  });
  timedOut.catch(() => undefined);
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), timedOut]);
      if (expired) throw error();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    text += decoder.decode();
  } finally {
    clearTimeout(timer);
  }
  reader.releaseLock();
  const renderMeta = (context.renderMeta ??= {});
  renderMeta.streamCache = {
    0: settled({ done: false, value: text }),
    1: settled({ done: true, value: "" }),
  };
  return text;
}
