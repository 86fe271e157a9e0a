import type { Flag } from "./flags.ts";

/**
 * The flags `ariadne verify` takes, for a run and for a bundle. Declared apart from the command table so
 * that `verify DIR` (cli/verifyBundleMain.ts, loaded before the rest of the command line) parses them with
 * no more than the parser.
 */
export const VERIFY_FLAGS: readonly Flag[] = [
  { name: "root", type: "string", arg: "HASH", help: "the root hash you kept (64 lowercase hex characters, as printed with the run's answer)" },
  { name: "key", type: "string", arg: "PUBKEY_FILE", help: "the public key the seal (RUN) or the bundle's manifest (DIR) must be signed with" },
  { name: "claim", type: "string", arg: "C", help: "DIR: print the chain of one claim (c1, c2, …)" },
  { name: "refetch", type: "boolean", help: "DIR: fetch each web source again and report it unchanged, changed, unreachable or refused (the address policy of web_fetch)" },
  { name: "json", type: "boolean", help: "print a machine-readable result (one JSON object)" },
];
