import type { SessionUser } from "../../auth/user";

/**
 * The caller classes a kept answer is keyed by: callers of one class are shown exactly the same.
 * - `everyone`: the answer is the same for every caller the route admits (its access rule decides who).
 * - `organisation`: the caller's roles, organisation and participant DID.
 * - `viewer`: those and the caller's patient: everything whose identities a caller may read depends on
 *   (server/privacy `viewerOf`), for answers that differ in what is pseudonymised.
 * - `user`: the caller themselves (user name besides).
 * A finer class is always safe (fewer callers share an answer); a coarser one is a leak.
 */
export type CallerClass = "everyone" | "organisation" | "viewer" | "user";

/** the key part of `user`'s class (no user: the anonymous class, which no signed-in caller shares) */
export function callerKey(kind: CallerClass, user: SessionUser | null | undefined): string {
  if (kind === "everyone") return "*";
  if (!user) return "anonymous";
  const roles = [...user.roles].sort().join(",");
  const org = `${roles}|${user.organisation.length}:${user.organisation}|${user.participantDid ?? "-"}`;
  if (kind === "organisation") return `org:${org}`;
  if (kind === "viewer") return `viewer:${org}|${user.patientId ?? "-"}`;
  return `user:${user.username.length}:${user.username}|${org}|${user.patientId ?? "-"}`;
}
