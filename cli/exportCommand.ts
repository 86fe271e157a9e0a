import type { KeyObject } from "node:crypto";
import { exportRun } from "../bundle/exportRun.ts";
import { AriadneError, ValidationError } from "../core/errors.ts";
import type { OpenOptions } from "../db/index.ts";
import { openStore } from "../events/openStore.ts";

export interface ExportOptions extends OpenOptions {
  runId: string | undefined;
  dir: string | undefined;
  /** The seal key (ARIADNE_SIGNING_KEY or .ariadne/keys/seal.key); the bundle's manifest is signed with it. */
  signingKey: KeyObject | undefined;
  json: boolean;
  out: (line: string) => void;
}

/** `ariadne export RUN DIR`: the run, verified, written as a signed bundle that verifies without Ariadne's database. */
export async function exportCommand(options: ExportOptions): Promise<number> {
  if (!options.runId || !options.dir) throw new ValidationError("export", [{ path: [options.runId ? "DIR" : "RUN"], message: "export takes a run id and a directory: ariadne export RUN DIR" }]);
  if (!options.signingKey) {
    throw new AriadneError("USAGE", 400, "export signs the bundle, and no signing key is configured: run `ariadne keys signing create`, or set ARIADNE_SIGNING_KEY");
  }
  const { database, close } = await openStore({ ...options, readOnly: true });
  try {
    const { manifest } = await exportRun(database, options.runId, options.dir, options.signingKey);
    if (options.json) options.out(JSON.stringify({ dir: options.dir, runId: manifest.runId, rootHash: manifest.rootHash, counts: manifest.counts }));
    else {
      options.out(`run ${manifest.runId} exported to ${options.dir}: ${manifest.counts.events} events in ${manifest.counts.streams} streams, ${manifest.counts.blobs} blobs, ${manifest.counts.files} files · root hash ${manifest.rootHash}`);
      options.out(`verify it anywhere: ariadne verify ${options.dir} --key PUBKEY_FILE`);
    }
    return 0;
  } finally {
    await close();
  }
}
