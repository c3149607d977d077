/**
 * The one module through which views (app/components) reach server/: shared types only, erased at
 * build time, so no server code lands in a component's bundle. Loaders and actions import server
 * modules directly; components receive their data (and any server-side function, as a prop) from
 * the route that renders them.
 */
export type { ApplicationDetail } from "../server/access-body/model";
export type { AuditEntry } from "../server/audit/model";
export type { Role } from "../server/auth/personas";
export type { HealthDataset } from "../server/catalogue/service";
export type { FieldError, FormFieldError } from "../server/http/field-errors";
export type { OdrlScope } from "../server/federated/scope";
export type { Layer } from "../server/graph/model";
export type { Topology } from "../server/operator/component-model";
export type { PolicyProblem, ValidationResult } from "../server/policies/odrl";
