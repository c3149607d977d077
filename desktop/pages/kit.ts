import { BRIDGE_NAME, type DesktopBridge } from "../bridge";

/** Helpers of the desktop's own pages (splash, first-run screen, notice): plain DOM, no framework. */

export function bridge(): DesktopBridge | null {
  return ((window as unknown as Record<string, unknown>)[BRIDGE_NAME] as DesktopBridge | undefined) ?? null;
}

export const query = new URLSearchParams(location.search);

type Child = Node | string | null | undefined | false;

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  for (const c of children) if (c) e.append(c);
  return e;
}

export function mount(...children: Child[]): void {
  const root = document.getElementById("app")!;
  root.replaceChildren(...children.filter((c): c is Node | string => !!c));
}

/** a button that calls the bridge and shows the answer's error in `status` */
export function action(
  label: string,
  testId: string,
  run: (b: DesktopBridge) => Promise<{ ok: boolean; error?: string }>,
  status: HTMLElement,
  cls = "primary",
): HTMLButtonElement {
  const b = el("button", { type: "button", class: cls, "data-testid": testId }, label);
  b.addEventListener("click", async () => {
    const api = bridge();
    if (!api) {
      status.textContent = "This page needs the desktop app.";
      return;
    }
    b.disabled = true;
    status.textContent = "";
    try {
      const r = await run(api);
      if (!r.ok) status.textContent = r.error ?? "That did not work.";
    } catch (e) {
      status.textContent = e instanceof Error ? e.message : String(e);
    } finally {
      b.disabled = false;
    }
  });
  return b;
}

export const MODE_TEXT: Record<string, string> = {
  offline: "the offline demo",
  local: "the local stack",
  connected: "the hosted stack",
};
