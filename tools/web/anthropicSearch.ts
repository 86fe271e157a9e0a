import type { ServerWebSearch } from "../../models/types.ts";
import { ToolError } from "../toolErrors.ts";
import type { SearchBackend } from "./searchBackend.ts";

/** Searches one model call may run when ARIADNE_ANTHROPIC_SEARCH_MAX_USES is unset. */
export const DEFAULT_SEARCH_MAX_USES = 5;

/** The variables of Anthropic's server-side search (read once by cli/config.ts). */
export interface AnthropicSearchSettings {
  ARIADNE_ANTHROPIC_SEARCH_MAX_USES?: string;
  ARIADNE_ANTHROPIC_SEARCH_ALLOWED_DOMAINS?: string;
  ARIADNE_ANTHROPIC_SEARCH_BLOCKED_DOMAINS?: string;
  /** `country=GB,city=London,region=England,timezone=Europe/London`, any of the four. */
  ARIADNE_ANTHROPIC_SEARCH_LOCATION?: string;
}

const LOCATION_KEYS = ["city", "region", "country", "timezone"] as const;

/**
 * The server tool's options from the variables, or the one problem with them
 * (a one-line configuration error naming the variable). Pure.
 */
export function anthropicSearchOf(s: AnthropicSearchSettings): { tool: ServerWebSearch } | { problem: string } {
  const rawMax = s.ARIADNE_ANTHROPIC_SEARCH_MAX_USES;
  const maxUses = rawMax === undefined ? DEFAULT_SEARCH_MAX_USES : Number(rawMax);
  if (!Number.isInteger(maxUses) || maxUses < 1 || maxUses > 50) {
    return { problem: `ARIADNE_ANTHROPIC_SEARCH_MAX_USES must be a whole number from 1 to 50 (searches per model call), got "${rawMax}"` };
  }
  const allowed = domains(s.ARIADNE_ANTHROPIC_SEARCH_ALLOWED_DOMAINS);
  const blocked = domains(s.ARIADNE_ANTHROPIC_SEARCH_BLOCKED_DOMAINS);
  if (allowed.length && blocked.length) {
    return { problem: "ARIADNE_ANTHROPIC_SEARCH_ALLOWED_DOMAINS and ARIADNE_ANTHROPIC_SEARCH_BLOCKED_DOMAINS cannot both be set (Anthropic's web search takes one or the other)" };
  }
  const bad = [...allowed, ...blocked].find((d) => /^[a-z]+:\/\//i.test(d) || /\s/.test(d));
  if (bad) return { problem: `search domain "${bad}" is not a domain: write it without a scheme, e.g. example.com or example.com/docs` };
  const location = userLocation(s.ARIADNE_ANTHROPIC_SEARCH_LOCATION);
  if ("problem" in location) return location;
  return {
    tool: {
      type: "web_search_20250305",
      max_uses: maxUses,
      ...(allowed.length && { allowed_domains: allowed }),
      ...(blocked.length && { blocked_domains: blocked }),
      ...(location.value && { user_location: location.value }),
    },
  };
}

const domains = (raw: string | undefined): string[] => (raw ?? "").split(",").map((d) => d.trim()).filter(Boolean);

function userLocation(raw: string | undefined): { value?: ServerWebSearch["user_location"] } | { problem: string } {
  if (!raw?.trim()) return {};
  const value: NonNullable<ServerWebSearch["user_location"]> = { type: "approximate" };
  for (const part of raw.split(",")) {
    const [key, ...rest] = part.split("=");
    const name = key!.trim() as (typeof LOCATION_KEYS)[number];
    const text = rest.join("=").trim();
    if (!LOCATION_KEYS.includes(name) || !text) {
      return { problem: `ARIADNE_ANTHROPIC_SEARCH_LOCATION: "${part.trim()}" is not one of ${LOCATION_KEYS.map((k) => `${k}=…`).join(", ")} (comma-separated)` };
    }
    value[name] = text;
  }
  if (value.country && !/^[A-Z]{2}$/.test(value.country)) return { problem: `ARIADNE_ANTHROPIC_SEARCH_LOCATION: country must be a two-letter ISO code such as GB, got "${value.country}"` };
  return { value };
}

/**
 * With ARIADNE_SEARCH=anthropic the model's searches run on Anthropic's
 * servers inside its calls (models/toAnthropicParams.ts); the host's own
 * web_search cannot run one, so called outside a model call (`ariadne tools
 * run`, a scripted model) it says so rather than that nothing is configured.
 */
export const anthropicSearchBackend = (): SearchBackend => ({
  name: "anthropic",
  search() {
    return Promise.reject(
      new ToolError("web_search is Anthropic's server-side search on this host (ARIADNE_SEARCH=anthropic): it runs only inside a call to an Anthropic model, not on its own; use the URLs you have, or set ARIADNE_SEARXNG_URL or BRAVE_SEARCH_API_KEY."),
    );
  },
});
