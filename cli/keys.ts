import { type OpenOptions } from "../db/index.ts";
import { openStore } from "../events/openStore.ts";
import { ROLES, type Role, createApiKey, revokeApiKey } from "../db/apiKeys.ts";
import { createSealKeyPair } from "./sealKeys.ts";
import { UsageError } from "./usage.ts";

type Out = { out: (line: string) => void };

/** `ariadne keys create --role R --tenant T`: a new API key, printed once. */
export async function createKey(options: OpenOptions & Out & { role?: string; tenant?: string }): Promise<number> {
  if (!options.role || !ROLES.includes(options.role as Role)) throw new UsageError(`keys create needs --role ${ROLES.join("|")}${options.role ? ` (got "${options.role}")` : ""}`);
  if (!options.tenant || !/^[A-Za-z0-9_.-]{1,100}$/.test(options.tenant)) throw new UsageError("keys create needs --tenant NAME (letters, digits, '.', '_' or '-')");
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

/** `ariadne keys revoke ID`. */
export async function revokeKey(options: OpenOptions & Out & { id: string }): Promise<number> {
  const { store, close } = await openStore(options);
  try {
    if (!(await revokeApiKey(store.database, options.id))) {
      console.error(`ariadne: no live key ${options.id}`);
      return 1;
    }
    options.out(`revoked ${options.id}`);
    return 0;
  } finally {
    await close();
  }
}

/** `ariadne keys signing create [--out DIR]`: the key pair run seals are signed with. */
export async function createSigningKey(options: Out & { outDir?: string }): Promise<number> {
  const made = createSealKeyPair(options.outDir);
  options.out(`seal signing key: ${made.privatePath} (private, mode 0600; keep it off the database host's backups)`);
  options.out(`public key: ${made.publicPath} (give it to whoever verifies: ariadne verify RUN --key ${made.publicPath})`);
  options.out(`fingerprint (sha256 of the raw public key): ${made.fingerprint}`);
  options.out(made.publicPem.trimEnd());
  return 0;
}
