import { organisationSlugOf, type SessionUser } from "../../../server/auth/user";
import type { HealthDataset } from "../../../server/catalogue/service";

import { mayAny, PUBLISHER_ROLES } from "../access.server";

/** Who may publish and withdraw datasets: the route table's POST /api/catalog roles, and the holder rule of server/catalogue/service.ts. */

export function canPublish(user: SessionUser): boolean {
  return mayAny(user, PUBLISHER_ROLES);
}

export function canWithdraw(user: SessionUser, dataset: HealthDataset): boolean {
  if (user.roles.includes("CONNECTOR_ADMIN")) return true;
  if (!user.roles.includes("DATA_HOLDER")) return false;
  return !dataset.holder || dataset.holder === organisationSlugOf(user);
}
