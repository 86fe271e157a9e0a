import { ScriptedModel, type ScriptPolicy, type ScriptedReply } from "../../models/index.ts";
import type { ModelRequest } from "../../models/types.ts";
import { exchanges, resultsOf } from "../requestView.ts";
import { variantChildPolicy } from "./variantChild.ts";
import { DATA_FILE, DATA_URL, TABLE_COLUMNS, TABLE_FILE, VARIANTS, type VariantRow } from "./variants.ts";

/**
 * The pc-measures scenario: Main fetches the Grunfeld CSV, delegates the seven
 * standard-error variants to seven compute-analyst Children in one turn (so
 * they run in parallel), tabulates their handoffs into pc_measures.csv in its
 * own workspace, publishes it, and answers with one observed claim per variant.
 * Every reply is derived from the request received; only judgment is scripted.
 */
export function pcMeasuresModel(options: { latencyMs?: number } = {}): ScriptedModel {
  return new ScriptedModel({ name: "pc-measures", policy: pcMeasuresPolicy, latencyMs: options.latencyMs });
}

export const pcMeasuresPolicy: ScriptPolicy = (request) => (request.tools.some((t) => t.name === "answer") ? mainPolicy(request) : variantChildPolicy(request));

interface ConsumedHandoff {
  child_executor_id: string;
  handoff: { summary: string; findings: { claim: string }[]; gaps: string[] };
}

const called = (request: ModelRequest, tool: string) => exchanges(request).some((x) => x.use.name === tool);

function mainPolicy(request: ModelRequest): ScriptedReply {
  if (!called(request, "web_fetch")) return use("web_fetch", { url: DATA_URL });
  const [fetched] = resultsOf(request, "web_fetch");
  const sha256 = fetched && /stored as blob sha256 ([0-9a-f]{64})/.exec(fetched.output)?.[1];
  if (!sha256) return answer(`(scripted) ${DATA_URL} could not be fetched, so nothing was computed.`, [notCollected(`The data at ${DATA_URL} could not be read.`)]);
  if (!called(request, "delegate")) {
    return {
      content: [
        { type: "text", text: "(scripted) Seven independent regressions on the same stored data: one compute-analyst Child each, all in this turn." },
        ...VARIANTS.map((variant) => ({ type: "tool_use" as const, name: "delegate", input: delegation(variant, sha256) })),
      ],
    };
  }
  const handoffs = resultsOf(request, "delegate").map((r) => JSON.parse(r.output) as ConsumedHandoff);
  const rows = VARIANTS.map((variant) => rowOf(variant, handoffs));
  if (!called(request, "write_file")) return use("write_file", { path: TABLE_FILE, content: csv(rows.flatMap((r) => (r ? [r.row] : []))) });
  if (!called(request, "publish_artifact")) return use("publish_artifact", { path: TABLE_FILE });
  const [published] = resultsOf(request, "publish_artifact");
  const artifact = published ? (JSON.parse(published.output) as { artifact: { id: string; sha256: string } }).artifact : null;
  const claims = VARIANTS.map((variant, i) => {
    const found = rows[i];
    return found
      ? { text: found.claim, basis: "observed" as const, citations: [{ executor: found.executor, finding: 0 }] }
      : notCollected(`${variant}: no usable finding was handed back.`);
  });
  const table = artifact ? `${TABLE_FILE} is published as artifact ${artifact.id} (sha256 ${artifact.sha256})` : `${TABLE_FILE} could not be published`;
  return answer(`(scripted) The seven standard-error variants of invest on value and capital, each computed by its own Child; ${table}.`, claims);
}

function delegation(variant: string, sha256: string) {
  return {
    profile: "compute-analyst",
    question: `Estimate invest on value and capital for the first 200 rows of ${DATA_FILE} with the ${variant} standard errors, and report coef_value, se_value, coef_capital, se_capital, obs and significant_value.`,
    context: [
      `variant: ${variant}`,
      `data: ${DATA_URL}, stored as blob sha256 ${sha256}; give it to compute as inputs: [{"sha256": "${sha256}", "name": "${DATA_FILE}"}].`,
      "method: scenarios/pcMeasures/regression_variants.py (run_variant) for this one variant; it reads the first 200 rows (10 firms, 1935-1954).",
    ].join("\n"),
    done_when: "The variant's six numbers are computed by one compute run, its result file is published, and the handoff cites that run.",
  };
}

/** A variant's row from its Child's finding (the printed JSON line), with the Child to cite. */
function rowOf(variant: string, handoffs: ConsumedHandoff[]): { row: VariantRow; claim: string; executor: string } | null {
  for (const h of handoffs) {
    const claim = h.handoff.findings[0]?.claim ?? "";
    const json = claim.slice(claim.indexOf("{"));
    try {
      const row = JSON.parse(json) as VariantRow;
      if (row.variant === variant) return { row, claim, executor: h.child_executor_id };
    } catch {
      // Not this Child's printed line; look at the next one.
    }
  }
  return null;
}

const csv = (rows: VariantRow[]) => `${[TABLE_COLUMNS.join(","), ...rows.map((r) => TABLE_COLUMNS.map((c) => String(r[c])).join(","))].join("\n")}\n`;

const notCollected = (text: string) => ({ text, basis: "not_collected" as const, citations: [] as { executor: string; finding: number }[] });

function answer(summary: string, claims: { text: string; basis: "observed" | "not_collected"; citations: { executor: string; finding: number }[] }[]): ScriptedReply {
  return use("answer", { summary, sections: [{ heading: "Standard-error variants of invest on value and capital", claims }] });
}

function use(name: string, input: unknown): ScriptedReply {
  return { content: [{ type: "tool_use", name, input }] };
}
