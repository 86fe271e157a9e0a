import { readFileSync } from "node:fs";

/** Where the scenario's data is served (the shared corpus's data/ folder, through the corpus server). */
export const DATA_URL = "https://data.corpus.test/grunfeld.csv";
export const DATA_FILE = "grunfeld.csv";

/** The seven standard-error variants of the robustness table, one compute-analyst Child each. */
export const VARIANTS = [
  "ols",
  "ols_cluster_firm",
  "ols_cluster_firm_year",
  "ols_driscoll_kraay_4",
  "wls_inv_value_robust",
  "fe_firm_cluster_firm",
  "fe_firm_year_cluster_firm",
] as const;
export type Variant = (typeof VARIANTS)[number];

/** The table Main publishes, and the fields each variant's program prints. */
export const TABLE_FILE = "pc_measures.csv";
export const TABLE_COLUMNS = ["variant", "coef_value", "se_value", "coef_capital", "se_capital", "obs", "significant_value"] as const;

export const PC_MEASURES_QUESTION =
  `Run the seven standard-error variants of invest on value and capital (Grunfeld, the first 200 rows of ${DATA_URL}) in parallel and tabulate them: ` +
  `${VARIANTS.join(", ")}. Write ${TABLE_FILE} with the columns ${TABLE_COLUMNS.join(",")}, one row per variant.`;

export interface VariantRow {
  variant: string;
  coef_value: number;
  se_value: number;
  coef_capital: number;
  se_capital: number;
  obs: number;
  significant_value: boolean;
}

let program: string | undefined;

/**
 * The Python a Child runs for one variant: regression_variants.py (which reads
 * the first 200 rows) and three lines that run the one variant, write its
 * result file (published as an artifact by compute) and print it.
 */
export function variantProgram(variant: Variant): string {
  program ??= readFileSync(new URL("./regression_variants.py", import.meta.url), "utf8");
  return [
    program,
    `result = run_variant(${JSON.stringify(variant)}, "/inputs/${DATA_FILE}")`,
    `with open(${JSON.stringify(resultFile(variant))}, "w") as out:`,
    `    out.write(json.dumps(result) + "\\n")`,
    `print(json.dumps(result))`,
    "",
  ].join("\n");
}

export const resultFile = (variant: string) => `${variant}.json`;

export const isVariant = (name: string): name is Variant => (VARIANTS as readonly string[]).includes(name);
