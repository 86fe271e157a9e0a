import { openStore, type OpenOptions } from "../db/index.ts";
import { createApiKey, revokeApiKey } from "../http/auth/apiKeys.ts";
import { ROLES, type Role } from "../http/auth/principal.ts";

export interface KeysOptions extends OpenOptions {
  role?: string;
  tenant?: string;
  out: (line: string) => void;
}

/** `ariadne keys create --role R --tenant T` prints a new key once; `ariadne keys revoke ID` revokes one. */
export async function keys(args: string[], options: KeysOptions): Promise<number> {
  const [action, id] = args;
  if (action === "create") {
    if (!options.role || !ROLES.includes(options.role as Role)) {
      console.error(`ariadne: keys create needs --role ${ROLES.join("|")}${options.role ? ` (got "${options.role}")` : ""}`);
      return 2;
    }
    if (!options.tenant || !/^[A-Za-z0-9_.-]{1,100}$/.test(options.tenant)) {
      console.error("ariadne: keys create needs --tenant NAME (letters, digits, '.', '_' or '-')");
      return 2;
    }
    const { store, close } = await openStore(options);
    try {
      const { keyId, token } = await createApiKey(store.database, { role: options.role as Role, tenant: options.tenant });
      options.out(`key id: ${keyId}  role: ${options.role}  tenant: ${options.tenant}`);
      options.out(`api key (shown once, only its sha256 is stored): ${token}`);
      return 0;
    } finally {
      await close();
    }
  }
  if (action === "revoke") {
    if (!id) {
      console.error("ariadne: keys revoke needs the key id (as printed by keys create)");
      return 2;
    }
    const { store, close } = await openStore(options);
    try {
      if (!(await revokeApiKey(store.database, id))) {
        console.error(`ariadne: no live key ${id}`);
        return 1;
      }
      options.out(`revoked ${id}`);
      return 0;
    } finally {
      await close();
    }
  }
  console.error(`ariadne: keys needs "create" or "revoke" (got ${action ? `"${action}"` : "nothing"})`);
  return 2;
}
