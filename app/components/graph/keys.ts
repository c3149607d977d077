/** The explorer's keyboard: what each key does on the focused canvas (the help text lists the same). */
export interface KeyAction {
  zoom?: number;
  pan?: [number, number];
  fit?: true;
  /** expand the selected node */
  activate?: true;
  /** clear the selection */
  clear?: true;
}

const STEP = 60;

export const KEY_ACTIONS: Record<string, KeyAction> = {
  "+": { zoom: 1.25 },
  "=": { zoom: 1.25 },
  "-": { zoom: 0.8 },
  _: { zoom: 0.8 },
  "0": { fit: true },
  ArrowLeft: { pan: [STEP, 0] },
  ArrowRight: { pan: [-STEP, 0] },
  ArrowUp: { pan: [0, STEP] },
  ArrowDown: { pan: [0, -STEP] },
  Enter: { activate: true },
  Escape: { clear: true },
};
