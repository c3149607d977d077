import path from "node:path";
import { exportFile } from "./export";

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
