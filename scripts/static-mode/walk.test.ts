import { linksOf, shapeOf, stripPersona, walkPersona } from "./walk";

describe("the walk", () => {
  it("extracts same-site links inside the persona's app", () => {
    const html =
      '<a href="/as/clinic/catalogue?q=a&amp;b=1">x</a><a href="/graph#top">g</a><a href="https://x.example/">e</a><a href="/as/lmc/">o</a><a href="/as/clinic/x" data-persona-switch="true">s</a>';
    expect(linksOf(html, "clinic")).toEqual(["/catalogue?q=a&b=1", "/graph"]);
    // a persona's home with a query (the persona tabs of the overview) is inside the persona's app
    expect(linksOf('<a href="/as/researcher?persona=DATA_USER">t</a>', "researcher")).toEqual([
      "/?persona=DATA_USER",
    ]);
    expect(shapeOf("/catalogue/x")).toBe("/catalogue/*");
    expect(shapeOf("/catalogue")).toBe("/catalogue");
  });

  it("follows links breadth first with caps per shape and per query", async () => {
    const pages: Record<string, string> = {
      "/": '<a href="/as/p/list">l</a>',
      "/list": Array.from(
        { length: 10 },
        (_, i) => `<a href="/as/p/list/${i}">${i}</a><a href="/as/p/list?page=${i}">p</a>`,
      ).join(""),
    };
    const seen: string[] = [];
    const handle = async (r: Request) => {
      const u = new URL(r.url);
      const p = stripPersona(u.pathname);
      seen.push(p + u.search);
      return new Response(pages[p] ?? "<p>leaf</p>", { headers: { "Content-Type": "text/html" } });
    };
    const walked = await walkPersona(handle, {
      origin: "http://h",
      persona: "p",
      rules: {
        start: ["/"],
        exclude: [],
        maxPagesPerPersona: 50,
        maxPerShape: 3,
        shapeCaps: {},
        maxQueriesPerPath: 2,
        variantParams: [],
        drillDownNodes: 0,
      },
    });
    expect(walked.map((w) => w.path)).toEqual([
      "/",
      "/list",
      "/list/0",
      "/list?page=0",
      "/list/1",
      "/list?page=1",
      "/list/2",
    ]);
    expect(seen).toHaveLength(7);
  });

  it("follows every tab and variant link, whatever the cap per query", async () => {
    const tabs = ["a", "b", "c", "d", "e"];
    const handle = async (r: Request) => {
      const p = stripPersona(new URL(r.url).pathname);
      const body =
        p === "/"
          ? tabs.map((t) => `<a href="/as/p?tab=${t}">${t}</a><a href="/as/p?page=${t}">${t}</a>`).join("")
          : "<p>leaf</p>";
      return new Response(body, { headers: { "Content-Type": "text/html" } });
    };
    const walked = await walkPersona(handle, {
      origin: "http://h",
      persona: "p",
      rules: {
        start: ["/"],
        exclude: [],
        maxPagesPerPersona: 50,
        maxPerShape: 3,
        shapeCaps: {},
        maxQueriesPerPath: 1,
        variantParams: ["tab"],
        drillDownNodes: 0,
      },
    });
    const paths = walked.map((w) => w.path);
    for (const t of tabs) expect(paths).toContain(`/?tab=${t}`);
    expect(paths.filter((p) => p.startsWith("/?page="))).toEqual(["/?page=a"]);
  });
});
