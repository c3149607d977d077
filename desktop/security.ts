import type { GuardableContents, Shell } from "./electron-api";
import { externalDecision, navigationDecision, type GuardPolicy } from "./url-guard";

/**
 * The window's security settings and guards (Electron's security checklist): context isolation
 * on, node integration off, sandboxed renderer, web security on, one preload with the typed bridge,
 * no new windows (allow-listed https links open in the user's browser), navigation limited to
 * the app's origin, its identity provider and the desktop's own pages, no <webview>, and no
 * permission (camera, notifications, ...) granted to any page, when asked or when checked.
 */

export function webPreferences(preloadPath: string) {
  return {
    preload: preloadPath,
    contextIsolation: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    sandbox: true,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    navigateOnDragDrop: false,
    spellcheck: false,
  } as const;
}

export interface GuardLog {
  (line: string): void;
}

/** installs the guards; `policy` is read on every navigation (it changes with the mode) */
export function hardenContents(
  contents: GuardableContents,
  policy: () => GuardPolicy,
  shell: Shell,
  log: GuardLog = () => {},
): void {
  contents.setWindowOpenHandler(({ url }) => {
    if (externalDecision(url, policy().externalAllowList)) void shell.openExternal(url);
    else log(`refused to open a window for ${url}`);
    return { action: "deny" };
  });
  const guard = (url: string, prevent: () => void) => {
    const decision = navigationDecision(url, policy());
    if (decision === "allow") return;
    prevent();
    if (decision === "external") void shell.openExternal(url);
    else log(`refused navigation to ${url}`);
  };
  contents.onWillNavigate(guard);
  contents.onWillRedirect(guard);
  contents.onWillAttachWebview((prevent) => prevent());
  contents.setPermissionRequestHandler((_permission, callback) => callback(false));
  // without a check handler Electron grants every check, and most APIs only ask when a check fails
  contents.setPermissionCheckHandler(() => false);
}
