import { contextBridge, ipcRenderer } from "electron";
import { BRIDGE_NAME, CHANNELS, type DesktopBridge, type SwitchRequest } from "./bridge";

/**
 * The preload of every window (sandboxed, context-isolated): exposes the one typed bridge as
 * `window.hubDesktop`. Nothing else of Electron or Node reaches the page.
 */
const bridge: DesktopBridge = {
  getState: () => ipcRenderer.invoke(CHANNELS.getState),
  switchMode: (request: SwitchRequest) =>
    ipcRenderer.invoke(CHANNELS.switchMode, { mode: request.mode, hostedUrl: request.hostedUrl }),
  openOfflineDemo: () => ipcRenderer.invoke(CHANNELS.openOfflineDemo),
  retryHosted: () => ipcRenderer.invoke(CHANNELS.retryHosted),
  showFirstRun: () => ipcRenderer.invoke(CHANNELS.showFirstRun),
};

contextBridge.exposeInMainWorld(BRIDGE_NAME, bridge);
