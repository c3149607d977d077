import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { appHref, appPathOf, isPlainClick, navLinkActive } from "./app-href";

const segment = fc.stringMatching(/^[a-z0-9-]{1,8}$/);
const inAppPath = fc
  .tuple(fc.array(segment, { maxLength: 4 }), fc.option(segment), fc.option(segment))
  .map(([segs, q, h]) => `/${segs.join("/")}${q ? `?q=${q}` : ""}${h ? `#${h}` : ""}`);
const basename = fc.oneof(
  fc.constant("/"),
  segment.map((p) => `/as/${p}`),
);

function parts(href: string) {
  const u = new URL(href, "http://hub.test");
  return [u.pathname, u.search, u.hash] as const;
}

describe("appHref and appPathOf", () => {
  it("render hrefs as React Router's useHref does", () => {
    expect(appHref("/", "/catalogue?q=x")).toBe("/catalogue?q=x");
    expect(appHref("/as/clinic", "/catalogue/ds-1")).toBe("/as/clinic/catalogue/ds-1");
    expect(appHref("/as/clinic/", "/catalogue")).toBe("/as/clinic/catalogue");
    expect(appHref("/as/clinic", "/")).toBe("/as/clinic");
    expect(appHref("/as/clinic", "/?persona=researcher")).toBe("/as/clinic?persona=researcher");
  });

  it("a click on any rendered href navigates to the path it was rendered from", () => {
    fc.assert(
      fc.property(basename, inAppPath, (base, to) => {
        // "/" and "/?q" render as the basename itself and come back as the root
        expect(appPathOf(base, ...parts(appHref(base, to)))).toBe(to);
      }),
    );
  });

  it("leaves a link outside the basename to the browser", () => {
    expect(appPathOf("/as/clinic", "/as/researcher/catalogue", "", "")).toBeNull();
    expect(appPathOf("/as/clinic", "/as/clinical", "", "")).toBeNull();
    expect(appPathOf("/", "/api/catalog", "", "")).toBe("/api/catalog");
  });
});

describe("navLinkActive", () => {
  it("marks the entry and the pages under it; `end` only the entry itself", () => {
    expect(navLinkActive("/access-body/applications/DAA-1", "/access-body/applications")).toBe(true);
    expect(navLinkActive("/access-body/applications", "/access-body", true)).toBe(false);
    expect(navLinkActive("/access-body", "/access-body", true)).toBe(true);
    expect(navLinkActive("/graph/", "/graph?layer=L3", true)).toBe(true);
    expect(navLinkActive("/graphs", "/graph")).toBe(false);
    expect(navLinkActive("/catalogue", "/")).toBe(false);
    expect(navLinkActive("/", "/")).toBe(true);
  });
});

describe("isPlainClick", () => {
  const click = { button: 0, metaKey: false, altKey: false, ctrlKey: false, shiftKey: false };
  it("is the main button without a modifier: the browser's own new-tab and download clicks stay its own", () => {
    expect(isPlainClick(click)).toBe(true);
    for (const k of ["metaKey", "altKey", "ctrlKey", "shiftKey"] as const)
      expect(isPlainClick({ ...click, [k]: true })).toBe(false);
    expect(isPlainClick({ ...click, button: 1 })).toBe(false);
  });
});
