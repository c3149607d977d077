import type { MenuItemSpec } from "./electron-api";
import { MODE_LABELS, type Mode } from "./settings";

/**
 * The application menu as data, and what each entry does. The "Hub" menu switches between the
 * three ways to start (radio items), reopens the first-run screen, and quits.
 */

export type MenuAction =
  | { kind: "switch"; mode: Mode }
  | { kind: "first-run"; focus?: Mode }
  | { kind: "reload" }
  | { kind: "home" }
  | { kind: "about" };

export interface MenuState {
  mode: Mode | null;
  hostedUrl: string | null;
  busy: boolean;
  devTools: boolean;
}

export function menuTemplate(s: MenuState): MenuItemSpec[] {
  const mode = (m: Mode, label: string): MenuItemSpec => ({
    id: `mode:${m}`,
    label,
    type: "radio",
    checked: s.mode === m,
    enabled: !s.busy,
  });
  return [
    {
      label: "Hub",
      submenu: [
        mode("offline", MODE_LABELS.offline),
        mode("local", MODE_LABELS.local),
        mode(
          "connected",
          s.hostedUrl
            ? `${MODE_LABELS.connected} (${new URL(s.hostedUrl).host})`
            : `${MODE_LABELS.connected}…`,
        ),
        { type: "separator" },
        { id: "first-run", label: "Choose how to start…", enabled: !s.busy },
        { type: "separator" },
        { role: "quit" },
      ],
    },
    {
      label: "Edit",
      submenu: [
        { role: "undo" },
        { role: "redo" },
        { type: "separator" },
        { role: "cut" },
        { role: "copy" },
        { role: "paste" },
        { role: "selectAll" },
      ],
    },
    {
      label: "View",
      submenu: [
        {
          id: "home",
          label: "Overview",
          accelerator: "CmdOrCtrl+Shift+H",
          enabled: !s.busy && s.mode !== null,
        },
        { id: "reload", label: "Reload", accelerator: "CmdOrCtrl+R" },
        { type: "separator" },
        { role: "resetZoom" },
        { role: "zoomIn" },
        { role: "zoomOut" },
        { role: "togglefullscreen" },
        ...(s.devTools ? [{ role: "toggleDevTools" }] : []),
      ],
    },
    { label: "Help", submenu: [{ id: "about", label: "About the three ways to start", enabled: !s.busy }] },
  ];
}

/** the action of a clicked menu entry; a "connected" entry without an address opens the first-run screen there */
export function menuAction(id: string, s: Pick<MenuState, "hostedUrl">): MenuAction | null {
  switch (id) {
    case "mode:offline":
      return { kind: "switch", mode: "offline" };
    case "mode:local":
      return { kind: "switch", mode: "local" };
    case "mode:connected":
      return s.hostedUrl ? { kind: "switch", mode: "connected" } : { kind: "first-run", focus: "connected" };
    case "first-run":
      return { kind: "first-run" };
    case "reload":
      return { kind: "reload" };
    case "home":
      return { kind: "home" };
    case "about":
      return { kind: "about" };
    default:
      return null;
  }
}
