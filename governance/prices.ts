/**
 * Model prices in USD per million tokens (list prices, standard context, no
 * batch discount), with the prompt cache's rates beside them: a cache write
 * (5-minute breakpoints, as models/toAnthropicParams.ts sends) costs 1.25 times
 * the input price, a cache read 0.1 times, as Anthropic publishes them. A model name matches the longest entry it equals
 * or starts with followed by "-" or ":" ("claude-sonnet-4-5-20250929" is
 * "claude-sonnet-4-5"). An unknown model is priced at `unknown`, the most
 * expensive entry, so an unpriced model can never spend past the cost cap.
 */
export interface Price {
  inputUsdPerMTok: number;
  outputUsdPerMTok: number;
  /** Input tokens written to the prompt cache (cache_creation_input_tokens). */
  cacheWriteUsdPerMTok: number;
  /** Input tokens read from the prompt cache (cache_read_input_tokens). */
  cacheReadUsdPerMTok: number;
}

/** A call's tokens as priced: the cache's apart from the rest of the input. */
export interface PricedUsage {
  inputTokens: number;
  outputTokens: number;
  cacheCreationInputTokens?: number;
  cacheReadInputTokens?: number;
  /** Server-side web searches the call ran (ARIADNE_SEARCH=anthropic), billed per search. */
  webSearchRequests?: number;
}

/**
 * Anthropic's server-side web search: 10 USD per 1,000 searches, whatever the
 * model (its published price), on top of the call's tokens. In millionths of a USD.
 */
export const WEB_SEARCH_MICROS = 10_000;

export interface PriceTable {
  models: Readonly<Record<string, Price>>;
  /**
   * A model of a known family with no entry of its own (a newer Sonnet, say) is
   * priced at the highest list price seen in that family: an estimate that errs
   * towards spending less, never a published price. Give it its own entry when known.
   */
  families: Readonly<Record<string, Price>>;
  unknown: Price;
}

const price = (inputUsdPerMTok: number, outputUsdPerMTok: number): Price => ({
  inputUsdPerMTok,
  outputUsdPerMTok,
  cacheWriteUsdPerMTok: inputUsdPerMTok * 1.25,
  cacheReadUsdPerMTok: inputUsdPerMTok * 0.1,
});

export const PRICES: PriceTable = {
  models: {
    "claude-opus-4-5": price(5, 25),
    "claude-opus-4-1": price(15, 75),
    "claude-opus-4": price(15, 75),
    "claude-sonnet-4-5": price(3, 15),
    "claude-sonnet-4": price(3, 15),
    "claude-3-7-sonnet": price(3, 15),
    "claude-haiku-4-5": price(1, 5),
    "claude-3-5-haiku": price(0.8, 4),
    "claude-3-haiku": price(0.25, 1.25),
    // The offline scenario's scripted models cost nothing.
    scripted: price(0, 0),
  },
  families: {
    "claude-opus": price(15, 75),
    "claude-sonnet": price(3, 15),
    "claude-haiku": price(1, 5),
  },
  unknown: price(15, 75),
};

export function priceOf(model: string, table: PriceTable = PRICES): Price {
  let best: string | null = null;
  for (const name of Object.keys(table.models)) {
    const matches = model === name || (model.startsWith(name) && (model[name.length] === "-" || model[name.length] === ":"));
    if (matches && (best === null || name.length > best.length)) best = name;
  }
  if (best !== null) return table.models[best]!;
  const family = Object.keys(table.families).find((f) => model.startsWith(`${f}-`));
  return family ? table.families[family]! : table.unknown;
}

/**
 * Cost in millionths of a USD, rounded up. 1 USD per million tokens is one
 * micro-USD per token; prices are taken in thousandths so the sum is exact
 * (a cache read of Claude 3 Haiku is 0.025 USD per million).
 */
export function costMicros(p: Price, inputTokens: number, outputTokens: number, cacheWriteTokens = 0, cacheReadTokens = 0): number {
  const per = (usd: number) => Math.round(usd * 1000);
  const thousandths =
    inputTokens * per(p.inputUsdPerMTok) + outputTokens * per(p.outputUsdPerMTok) + cacheWriteTokens * per(p.cacheWriteUsdPerMTok) + cacheReadTokens * per(p.cacheReadUsdPerMTok);
  return Math.ceil(thousandths / 1000);
}

/** A call's cost by its usage, cache tokens at the cache's rates, server-side searches per search (absent counts are none). */
export const usageCostMicros = (p: Price, u: PricedUsage): number =>
  costMicros(p, u.inputTokens, u.outputTokens, u.cacheCreationInputTokens ?? 0, u.cacheReadInputTokens ?? 0) + (u.webSearchRequests ?? 0) * WEB_SEARCH_MICROS;

/** Every input token of a call, cached or not (what a context holds). */
export const allInputTokens = (u: PricedUsage): number => u.inputTokens + (u.cacheCreationInputTokens ?? 0) + (u.cacheReadInputTokens ?? 0);
