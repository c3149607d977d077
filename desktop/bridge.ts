import type { Mode } from "./settings";

/**
 * The one bridge between a window and the main process (preload.ts exposes it as
 * `window.hubDesktop` through contextBridge). Every call is an IPC invoke on a channel below;
 * main checks the sender (trustedSender) and validates the arguments.
 */

export interface DesktopState {
  mode: Mode | null;
  hostedUrl: string | null;
  /** the origin the window shows for the mode, once its server runs */
  appUrl: string | null;
  /** shown while starting or after a failure */
  status: "choosing" | "starting" | "running" | "closed" | "failed";
  message: string | null;
}

export interface SwitchRequest {
  mode: Mode;
  /** for "connected" */
  hostedUrl?: string;
}

export type SwitchResult = { ok: true } | { ok: false; error: string };

export interface DesktopBridge {
  getState(): Promise<DesktopState>;
  switchMode(request: SwitchRequest): Promise<SwitchResult>;
  openOfflineDemo(): Promise<SwitchResult>;
  /** for "connected" after a closed or unreachable notice: probe the hosted stack again */
  retryHosted(): Promise<SwitchResult>;
  /** the first-run screen (after a failed start) */
  showFirstRun(): Promise<SwitchResult>;
}

export const CHANNELS = {
  getState: "hub:get-state",
  switchMode: "hub:switch-mode",
  openOfflineDemo: "hub:open-offline-demo",
  retryHosted: "hub:retry-hosted",
  showFirstRun: "hub:show-first-run",
} as const satisfies Record<keyof DesktopBridge, string>;

export const BRIDGE_NAME = "hubDesktop";

/**
 * Which frames may use the bridge: the desktop's own pages (file:// under build/desktop/pages)
 * and the local server's pages. The hosted stack's pages may only read the state.
 */
export function trustedSender(
  senderUrl: string,
  channel: string,
  opts: { pagesPrefix: string; localOrigin: string | null },
): boolean {
  if (senderUrl.startsWith(opts.pagesPrefix)) return true;
  let origin: string;
  try {
    origin = new URL(senderUrl).origin;
  } catch {
    return false;
  }
  if (opts.localOrigin && origin === opts.localOrigin) return true;
  return (
    channel === CHANNELS.getState && (origin.startsWith("https://") || origin.startsWith("http://127.0.0.1"))
  );
}

export function parseSwitchRequest(v: unknown): SwitchRequest | null {
  if (!v || typeof v !== "object") return null;
  const o = v as Record<string, unknown>;
  if (o.mode !== "offline" && o.mode !== "local" && o.mode !== "connected") return null;
  if (o.hostedUrl !== undefined && typeof o.hostedUrl !== "string") return null;
  return { mode: o.mode, ...(typeof o.hostedUrl === "string" ? { hostedUrl: o.hostedUrl } : {}) };
}
