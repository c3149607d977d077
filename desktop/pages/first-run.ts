import { action, el, mount, query } from "./kit";

/** The first-run screen (and menu: "Choose how to start…"): the three ways to start. */

const status = el("p", { class: "error", role: "alert", "data-testid": "first-run-error" });
const hosted = el("input", {
  type: "url",
  name: "hostedUrl",
  placeholder: "https://hub.example.eu",
  value: query.get("hostedUrl") ?? "",
  "aria-label": "Address of the hosted stack",
  "data-testid": "hosted-url",
});
const current = query.get("current");

function card(mode: string, title: string, text: string, ...extra: (Node | null)[]) {
  return el(
    "article",
    {
      class: `card${current === mode ? " current" : ""}${query.get("focus") === mode ? " focus" : ""}`,
      "data-testid": `mode-${mode}`,
    },
    el("h2", {}, title),
    el("p", {}, text),
    ...extra,
  );
}

mount(
  el(
    "section",
    { "data-testid": "first-run" },
    el("h1", {}, query.get("about") ? "Three ways to start" : "How do you want to start?"),
    el("p", { class: "lead" }, "You can change this later in the Hub menu."),
    el(
      "div",
      { class: "cards" },
      card(
        "offline",
        "Offline demo",
        "Every view with bundled sample data, for presentations: no network, no sign-in (pick a persona), nothing is saved.",
        action("Start the offline demo", "start-offline", (b) => b.switchMode({ mode: "offline" }), status),
      ),
      card(
        "local",
        "Local",
        "The whole stack on this computer: synthetic data, the development sign-in and dataspace, kept in your user folder.",
        action("Start locally", "start-local", (b) => b.switchMode({ mode: "local" }), status),
      ),
      card(
        "connected",
        "Connected",
        "Work with your organisation's hosted stack. Outside its office hours the app offers the offline demo instead.",
        el("label", {}, "Address", hosted),
        action(
          "Connect",
          "start-connected",
          (b) => b.switchMode({ mode: "connected", hostedUrl: hosted.value }),
          status,
        ),
      ),
    ),
    status,
  ),
);
if (query.get("focus") === "connected") hosted.focus();
