import { AriadneError } from "../core/errors.ts";

export interface ProfileBinding {
  id: string;
  version: string;
  sha256: string;
}

/** No profile file for this id (or an id that could never name one). */
export class UnknownProfileError extends AriadneError {
  constructor(
    readonly profileId: string,
    readonly known: readonly string[],
  ) {
    super(
      "UNKNOWN_PROFILE",
      404,
      `unknown profile "${profileId}"; known profiles: ${known.length ? known.join(", ") : "(none)"}`,
    );
  }
}

/**
 * The file behind a frozen binding is not the one the executor was admitted with.
 * A bound executor keeps its method, so redispatch and recovery must stop here
 * instead of silently running a different text.
 */
export class ProfileChangedError extends AriadneError {
  constructor(
    readonly binding: ProfileBinding,
    readonly actual: { version: string | null; sha256: string },
  ) {
    super(
      "PROFILE_CHANGED",
      409,
      `profile "${binding.id}" changed since it was bound (bound version ${binding.version}, sha256 ${binding.sha256}; ` +
        `file now version ${actual.version ?? "unreadable"}, sha256 ${actual.sha256}); ` +
        `restore the bound file or start a new delegation to use the new version`,
    );
  }
}

/** A profile file whose header is malformed; names the file and what is wrong. */
export class ProfileFormatError extends AriadneError {
  constructor(
    readonly file: string,
    problem: string,
  ) {
    super("PROFILE_INVALID", 500, `profile file ${file}: ${problem}`);
  }
}
