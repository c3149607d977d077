import { renderToString } from "react-dom/server";
import { renderWhole } from "./entry.server";

describe("renderWhole", () => {
  it("sends no NUL where a multi-byte character meets the end of React's 2 KB buffer (facebook/react#31134)", async () => {
    // 300 short items each ending in "→" (3 bytes in UTF-8): some fall on a buffer's end
    const node = (
      <ul>
        {Array.from({ length: 300 }, (_, i) => (
          <li key={i}>{"x".repeat(i % 5) + "→"}</li>
        ))}
      </ul>
    );
    const html = await renderWhole(node);
    expect(html.includes("\0")).toBe(false);
    expect(html).toBe(renderToString(node));
  });
});
