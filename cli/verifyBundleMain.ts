import { isAriadneError } from "../core/errors.ts";
import { isDirectory } from "./isDirectory.ts";
import { parseFlags } from "./flags.ts";
import { verifyBundleCommand } from "./verifyBundleCommand.ts";
import { VERIFY_FLAGS } from "./verifyFlags.ts";
import { errorLine } from "./errorLine.ts";
import { terminalText } from "../core/sanitizeText.ts";

/**
 * `ariadne verify DIR` before the rest of the command line is loaded
 * (cli/bin.mjs): this entry imports no store, driver or runtime, so verifying a
 * bundle loads none of them. Null when the arguments are not a bundle
 * verification as this entry reads them (another target, another flag): the
 * full command line then takes them, and its errors.
 */
export async function verifyBundleMain(argv: string[], print: (line: string) => void = console.log): Promise<number | null> {
  // A bundle is someone else's files: its names and texts are shown, their control sequences never acted on (as main's out does).
  const out = (line: string) => print(terminalText(line));
  let parsed;
  try {
    // The table's own flags of verify (cli/commands/storeCommands.ts); --help, --data-dir or a bad flag go to the full command line.
    parsed = parseFlags(VERIFY_FLAGS, argv, "verify", "");
  } catch {
    return null;
  }
  const [dir, ...extra] = parsed.positionals;
  if (dir === undefined || extra.length > 0 || !isDirectory(dir)) return null;
  // --refetch reaches the network under the host's address policy, which the full command line reads from its configuration.
  if (parsed.values.bool("refetch")) return null;
  try {
    const v = parsed.values;
    return await verifyBundleCommand({ dir, keyPath: v.string("key"), claim: v.string("claim"), root: v.string("root"), refetch: v.bool("refetch"), json: v.bool("json"), out });
  } catch (e) {
    errorLine(`ariadne: ${isAriadneError(e) ? e.message : (e as Error)?.message ?? String(e)}`);
    return isAriadneError(e) && e.code === "USAGE" ? 2 : 1;
  }
}
