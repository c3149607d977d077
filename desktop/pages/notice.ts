import { action, el, mount, query } from "./kit";

/**
 * The desktop's notice: the hosted stack is closed (office hours, hold day) or out of reach, or a
 * server did not start. Always offers the offline demo.
 */

const kind = query.get("kind") ?? "closed";
const host = (() => {
  try {
    return new URL(query.get("hostedUrl") ?? "").host;
  } catch {
    return "the hosted stack";
  }
})();
const status = el("p", { class: "error", role: "alert" });

function opening(): Node {
  const iso = query.get("nextOpening");
  if (!iso) return el("p", { "data-testid": "next-opening" }, "No opening time is scheduled yet.");
  const d = new Date(iso);
  const local = new Intl.DateTimeFormat(undefined, { dateStyle: "full", timeStyle: "short" }).format(d);
  const berlin = new Intl.DateTimeFormat("en-GB", {
    dateStyle: "full",
    timeStyle: "short",
    timeZone: "Europe/Berlin",
  }).format(d);
  return el(
    "p",
    { "data-testid": "next-opening" },
    "It opens again on ",
    el("time", { datetime: iso }, local),
    ` (${berlin}, Berlin time).`,
  );
}

const title =
  kind === "closed"
    ? `${host} is offline`
    : kind === "unreachable"
      ? `${host} cannot be reached`
      : "The app could not start";
const why =
  kind === "closed"
    ? query.get("reason") === "hold"
      ? "The hosted stack is on hold today and stays stopped all day."
      : "The hosted stack runs only during office hours and is stopped right now."
    : kind === "unreachable"
      ? `No answer from ${host}: ${query.get("message") ?? "the connection failed"}.`
      : (query.get("message") ?? "The server stopped.");

mount(
  el(
    "section",
    { class: "center", "data-testid": `desktop-notice-${kind}` },
    el("h1", {}, title),
    el("p", {}, why),
    kind === "closed" ? opening() : null,
    el(
      "div",
      { class: "actions" },
      action("Open the offline demo", "open-offline-demo", (b) => b.openOfflineDemo(), status),
      kind === "failed"
        ? action("Choose how to start", "choose-mode", (b) => b.showFirstRun(), status, "ghost")
        : action("Try again", "retry-hosted", (b) => b.retryHosted(), status, "ghost"),
    ),
    status,
  ),
);
