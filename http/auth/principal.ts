import type { Role } from "../../db/apiKeys.ts";

export { ROLES, type Role } from "../../db/apiKeys.ts";

/** Who is calling: the key's id, tenant and role. `keyId` null means auth is off (--no-auth). */
export interface Principal {
  keyId: string | null;
  tenant: string;
  role: Role;
}

/** What a role may do. Admin may do everything, across tenants. */
export type Action = "read" | "create" | "cancel";

const GRANTS: Record<Role, readonly Action[]> = {
  client: ["read", "create", "cancel"],
  auditor: ["read"],
  admin: ["read", "create", "cancel"],
};

export const may = (p: Principal, action: Action): boolean => GRANTS[p.role].includes(action);

/** The tenant whose runs a principal sees; null for all tenants (admin). */
export const tenantScope = (p: Principal): string | null => (p.role === "admin" ? null : p.tenant);

/** The principal used when the server runs with --no-auth: an admin of tenant "default". */
export const ANONYMOUS: Principal = { keyId: null, tenant: "default", role: "admin" };
