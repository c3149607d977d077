import type { Config } from "../config";
import {
  DEFAULT_TIME_ZONE,
  officeStatus,
  parseOfficeHours,
  type OfficeHours,
  type OfficeStatus,
} from "./office-hours";

export type OfficeGate = ReturnType<typeof createOfficeGate>;

/** OFFICE_HOURS and OFFICE_HOLDS, parsed once at start-up (a bad value fails the boot, naming the variable). */
export function createOfficeGate(config: Pick<Config, "officeHours" | "officeHolds">) {
  let hours: OfficeHours | undefined;
  if (config.officeHours) {
    try {
      hours = parseOfficeHours(config.officeHours);
    } catch (e) {
      throw new Error(`Invalid configuration:\n  - OFFICE_HOURS: ${(e as Error).message}`);
    }
  }
  const always = !hours && config.officeHolds.length === 0;
  return {
    timeZone: hours?.timeZone ?? DEFAULT_TIME_ZONE,
    status: (now: Date): OfficeStatus =>
      always ? { open: true } : officeStatus(hours, config.officeHolds, now),
  };
}
