import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SERVER_NODE_FLAGS } from "./node-flags";

describe("the server's Node flags", () => {
  it("are the flags of `npm start`, in front of the server module", () => {
    const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> };
    expect(pkg.scripts.start).toContain(`node ${SERVER_NODE_FLAGS.join(" ")} build/server/index.js`);
  });

  it("are accepted by this Node (an unknown flag would stop the server at start)", async () => {
    const { execFileSync } = await import("node:child_process");
    const out = execFileSync(process.execPath, [...SERVER_NODE_FLAGS, "-e", "process.stdout.write('ok')"]);
    expect(out.toString()).toBe("ok");
  });
});
