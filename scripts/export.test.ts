import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import * as exporter from "./export";

const { exportFile } = exporter;

describe("the export's files", () => {
  const out = path.resolve("dist/static-site");

  it("writes a walked path under --out, its segments decoded", () => {
    expect(exportFile(out, "/as/clinic/catalogue/a%20b.data")).toBe(
      path.join(out, "as/clinic/catalogue/a b.data"),
    );
    // a slash inside an id (decoded) that stays under --out is a folder there
    expect(exportFile(out, "/as/clinic/catalogue/x%2F..%2Fy/index.html")).toBe(
      path.join(out, "as/clinic/catalogue/y/index.html"),
    );
  });

  it("refuses a path that would land outside --out, encoded or not", () => {
    for (const rel of [
      "/as/clinic/catalogue/..%2F..%2F..%2F..%2Fescaped/index.html",
      "/as/clinic/catalogue/%2E%2E%2F%2E%2E%2F%2E%2E%2F%2E%2E%2Fescaped.data",
      "/as/clinic/../../../escaped.data",
      "/as/clinic/catalogue/..%2F..%2F..%2F..%2F..%2F..%2F..%2F..%2Fetc%2Fpasswd",
      "/..%2Fstatic-site-sibling/index.html",
    ])
      expect(() => exportFile(out, rel), rel).toThrow(/would be written outside/);
  });
});

describe("the export's --out folder", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "hub-export-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("refuses to delete a folder it did not write (--out / or ~ or the repo), touching nothing", async () => {
    writeFileSync(path.join(dir, "keep.txt"), "mine");
    mkdirSync(path.join(dir, "src"));
    await expect(exporter.exportSite(dir, { buildPath: path.join(dir, "no-build.js") })).rejects.toThrow(
      `--out ${dir} is not empty and holds no earlier export (no .hub-export file): not deleting it; give an empty or new folder`,
    );
    expect(readdirSync(dir).sort()).toEqual(["keep.txt", "src"]);
  });

  it("ends a refusal on the command line with its message alone, no stack, exit 1", () => {
    writeFileSync(path.join(dir, "keep.txt"), "mine");
    const run = spawnSync(process.execPath, ["--import", "tsx", "scripts/export.ts", "--out", dir], {
      encoding: "utf8",
    });
    expect([run.status, run.stderr]).toEqual([
      1,
      `--out ${dir} is not empty and holds no earlier export (no .hub-export file): not deleting it; give an empty or new folder\n`,
    ]);
    expect(readdirSync(dir)).toEqual(["keep.txt"]);
  }, 120_000);

  it("clears an earlier export (its marker file) or an empty or new folder, and marks it", () => {
    writeFileSync(path.join(dir, ".hub-export"), "");
    writeFileSync(path.join(dir, "index.html"), "old export");
    exporter.clearOut(dir);
    expect(readdirSync(dir)).toEqual([".hub-export"]);
    const fresh = path.join(dir, "new", "site");
    exporter.clearOut(fresh);
    expect(readdirSync(fresh)).toEqual([".hub-export"]);
    rmSync(path.join(fresh, ".hub-export"));
    exporter.clearOut(fresh);
    expect(existsSync(path.join(fresh, ".hub-export"))).toBe(true);
  });
});
