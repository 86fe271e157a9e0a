import { z } from "zod";
import { formatZodIssues } from "../../core/errors.ts";
import type { EventData } from "../../events/index.ts";
import { toolSpec } from "../../tools/index.ts";

export const SUBMIT_CHECK_TOOL = "submit_check";

/** The Checker's terminal call: a verdict per claim of Main's answer, each resting on its check tools' outputs. */
export const CheckSubmissionSchema = z.object({
  verdicts: z
    .array(
      z.object({
        claim_id: z.string().trim().min(1).describe("The claim's id as the task lists it (c1, c2, ...)."),
        verdict: z
          .enum(["supported", "flagged", "no_evidence"])
          .describe("flagged: a check tool found a problem (a number no cited text states, a source that changed or could not be read, advice); no_evidence: it cites nothing; else supported."),
        note: z.string().trim().min(1).max(500).optional().describe("Why, naming the tool output it rests on."),
      }),
    )
    .min(1),
});

export const submitCheckSpec = toolSpec(
  SUBMIT_CHECK_TOOL,
  "Finish the check with one verdict per claim of the answer. Call once, after the check tools ran; a verdict the tools' outputs contradict in the answer's favour is overruled by them.",
  CheckSubmissionSchema,
);

type Submitted = EventData<"check_submitted">;

/** The submission as the log records it, or feedback that says how to repair it. */
export function validateCheckSubmission(input: unknown): { ok: true; check: Submitted } | { ok: false; feedback: string } {
  const parsed = CheckSubmissionSchema.safeParse(input);
  if (!parsed.success) return { ok: false, feedback: `check not accepted: ${formatZodIssues(parsed.error.issues)}. Call submit_check again with a verdict per claim.` };
  const ids = parsed.data.verdicts.map((v) => v.claim_id);
  const twice = ids.filter((id, i) => ids.indexOf(id) !== i);
  if (twice.length) return { ok: false, feedback: `check not accepted: claim ${[...new Set(twice)].join(", ")} has more than one verdict. Give one verdict per claim.` };
  const verdicts = parsed.data.verdicts.map((v) => ({ claimId: v.claim_id, verdict: v.verdict, ...(v.note && { note: v.note }) }));
  return { ok: true, check: { verdicts, forced: false } };
}
