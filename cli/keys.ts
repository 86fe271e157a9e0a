import { type OpenOptions } from "../db/index.ts";
import { openStore } from "../events/openStore.ts";
import { ROLES, type Role, createApiKey, revokeApiKey } from "../db/apiKeys.ts";
import { createSealKeyPair } from "./sealKeys.ts";

export interface KeysOptions extends OpenOptions {
  role?: string;
  tenant?: string;
  /** `keys signing create --out DIR`: where the seal's key pair goes. */
  outDir?: string;
  out: (line: string) => void;
}

/**
 * `ariadne keys create --role R --tenant T` prints a new API key once; `ariadne keys revoke ID` revokes one;
 * `ariadne keys signing create [--out DIR]` makes the key pair run seals are signed with.
 */
export async function keys(args: string[], options: KeysOptions): Promise<number> {
  const [action, id] = args;
  if (action === "signing") {
    if (id !== "create") {
      console.error(`ariadne: keys signing needs "create" (got ${id ? `"${id}"` : "nothing"})`);
      return 2;
    }
    const made = createSealKeyPair(options.outDir);
    options.out(`seal signing key: ${made.privatePath} (private, mode 0600; keep it off the database host's backups)`);
    options.out(`public key: ${made.publicPath} (give it to whoever verifies: ariadne verify RUN --key ${made.publicPath})`);
    options.out(`fingerprint (sha256 of the raw public key): ${made.fingerprint}`);
    options.out(made.publicPem.trimEnd());
    return 0;
  }
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
  console.error(`ariadne: keys needs "create", "revoke" or "signing create" (got ${action ? `"${action}"` : "nothing"})`);
  return 2;
}
