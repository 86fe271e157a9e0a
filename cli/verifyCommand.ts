import { openStore, type OpenOptions } from "../db/index.ts";
import { ValidationError } from "../core/errors.ts";
import { describeProblem, verifyRun } from "../events/verifyRun.ts";

export interface VerifyOptions extends OpenOptions {
  runId: string | undefined;
  /** The root hash printed with the run's answer, if the user kept it. */
  root?: string;
  json: boolean;
  out: (line: string) => void;
}

/**
 * `ariadne verify RUN [--root HASH]`: every stream of the run, the references
 * between them and its seal. Exit 0 when intact; 1 with the first bad event
 * named (and the rest counted), or with one line when the store is damaged.
 */
export async function verifyCommand(options: VerifyOptions): Promise<number> {
  if (!options.runId) throw new ValidationError("verify", [{ path: ["RUN"], message: "the run id to verify is required (it is printed with each run's answer)" }]);
  if (options.root !== undefined && !/^[0-9a-f]{64}$/.test(options.root)) {
    throw new ValidationError("verify", [{ path: ["--root"], message: "a root hash is 64 lowercase hex characters, as printed with the run's answer" }]);
  }
  const { database, close } = await openStore(options);
  try {
    const result = await verifyRun(database, options.runId, { expectedRoot: options.root });
    if (options.json) {
      options.out(JSON.stringify({ ...result, firstBad: result.problems[0] ?? null }));
    } else if (result.ok) {
      const seal = result.sealed ? `sealed, root hash ${result.rootHash}` : `not sealed (root hash now ${result.rootHash})`;
      options.out(`run ${result.runId}: intact · ${result.streams.length} streams, ${result.events} events · ${seal}`);
    } else {
      const more = result.problems.length > 1 ? ` (and ${result.problems.length - 1} more problem${result.problems.length > 2 ? "s" : ""})` : "";
      options.out(`run ${result.runId}: NOT intact: ${describeProblem(result.problems[0])}${more}`);
    }
    return result.ok ? 0 : 1;
  } finally {
    await close();
  }
}
