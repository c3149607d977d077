import { el, mount, MODE_TEXT, query } from "./kit";

const mode = query.get("mode") ?? "";
mount(
  el(
    "section",
    { class: "center", "data-testid": "desktop-splash" },
    el("div", { class: "spinner", "aria-hidden": "true" }),
    el("h1", {}, "Health Dataspace Hub"),
    el("p", { role: "status" }, `Starting ${MODE_TEXT[mode] ?? "the app"}…`),
    mode === "local"
      ? el(
          "p",
          { class: "muted" },
          "The first start seeds the synthetic population: this takes a few seconds.",
        )
      : null,
  ),
);
