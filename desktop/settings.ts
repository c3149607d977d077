import { z } from "zod";
import type { Settings } from "./electron-api";

/**
 * The three ways to start, and what the desktop remembers between starts (settings.json under the
 * user-data folder). No mode yet: the first-run screen asks.
 *
 * - offline: the offline demo, static mode from the bundled fixtures; no network at all
 * - local: the whole stack on this machine with the embedded defaults (SQLite graph, embedded
 *   identity provider and dataspace), data under the user-data folder
 * - connected: the window shows a hosted stack (its URL); the desktop keeps the offline demo
 *   ready on this machine for when the hosted stack is closed or out of reach
 */

export const MODES = ["offline", "local", "connected"] as const;
export type Mode = (typeof MODES)[number];

export const MODE_LABELS: Record<Mode, string> = {
  offline: "Offline demo",
  local: "Local (this computer)",
  connected: "Connected to a hosted stack",
};

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** a hosted stack's URL: https, or http on this machine only (for trying a local stack); origin + path, no query */
export function parseHostedUrl(input: string): { ok: true; url: string } | { ok: false; error: string } {
  let u: URL;
  try {
    u = new URL(input.trim());
  } catch {
    return { ok: false, error: "Enter the address of the hosted stack, e.g. https://hub.example.eu" };
  }
  if (u.username || u.password)
    return { ok: false, error: "The address must not contain a user name or password" };
  if (u.protocol !== "https:" && !(u.protocol === "http:" && LOOPBACK.has(u.hostname))) {
    return { ok: false, error: "The hosted stack must be reached over https (http only for this computer)" };
  }
  return { ok: true, url: `${u.origin}${u.pathname.replace(/\/+$/, "")}` };
}

export const settingsSchema = z.object({
  version: z.literal(1),
  mode: z.enum(MODES).nullable(),
  hostedUrl: z
    .string()
    .refine((s) => parseHostedUrl(s).ok, "not a hosted stack address")
    .optional(),
});
export type DesktopSettings = z.infer<typeof settingsSchema>;

export const FIRST_RUN: DesktopSettings = { version: 1, mode: null };

/** reads settings.json; a missing, unreadable or invalid file means first run */
export function loadSettings(store: Settings): DesktopSettings {
  const text = store.read();
  if (!text) return FIRST_RUN;
  try {
    const parsed = settingsSchema.safeParse(JSON.parse(text));
    if (!parsed.success) return FIRST_RUN;
    // connected without an address cannot start: ask again
    if (parsed.data.mode === "connected" && !parsed.data.hostedUrl) return { ...parsed.data, mode: null };
    return parsed.data;
  } catch {
    return FIRST_RUN;
  }
}

export function saveSettings(store: Settings, settings: DesktopSettings): void {
  store.write(`${JSON.stringify(settingsSchema.parse(settings), null, 2)}\n`);
}
