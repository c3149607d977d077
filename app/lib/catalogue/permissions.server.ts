import type { Role } from "../../../server/auth/personas";
import { organisationSlugOf, type SessionUser } from "../../../server/auth/user";
import type { HealthDataset } from "../../../server/catalogue/service";

/** Who may publish and withdraw datasets: mirrors the route table and server/catalogue/service.ts. */
export const PUBLISHER_ROLES: readonly Role[] = ["DATA_HOLDER", "CONNECTOR_ADMIN"];

export function canPublish(user: SessionUser): boolean {
  return PUBLISHER_ROLES.some((r) => user.roles.includes(r));
}

export function canWithdraw(user: SessionUser, dataset: HealthDataset): boolean {
  if (user.roles.includes("CONNECTOR_ADMIN")) return true;
  if (!user.roles.includes("DATA_HOLDER")) return false;
  return !dataset.holder || dataset.holder === organisationSlugOf(user);
}
