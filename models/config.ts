import { ConfigError } from "../core/errors.ts";
import { AnthropicModel } from "./anthropicModel.ts";
import type { ServerWebSearch } from "./types.ts";

export type ModelRole = "main" | "child" | "reviewer" | "checker";
/**
 * What the model layer is configured with, by name as in the environment;
 * read once by cli/config.ts (nothing below it reads the environment).
 */
export interface ModelSettings {
  ANTHROPIC_API_KEY?: string;
  ANTHROPIC_BASE_URL?: string;
  ARIADNE_MODEL_MAIN?: string;
  ARIADNE_MODEL_CHILD?: string;
  ARIADNE_MODEL_REVIEWER?: string;
  ARIADNE_MODEL_CHECKER?: string;
  ARIADNE_MODEL_IDLE_TIMEOUT_MS?: string;
}
export type Env = ModelSettings;

/**
 * Current models the installed SDK does not list as deprecated (it warns on
 * every call to one that is); tests/models/defaultModels.test.ts checks that
 * against the SDK the lockfile pins.
 */
export const DEFAULT_MODELS: Readonly<Record<ModelRole, string>> = {
  main: "claude-sonnet-5-5",
  child: "claude-haiku-5-5",
  reviewer: "claude-sonnet-5-5",
  checker: "claude-haiku-5-5",
};

const ENV_NAMES: Record<ModelRole, keyof ModelSettings> = {
  main: "ARIADNE_MODEL_MAIN",
  child: "ARIADNE_MODEL_CHILD",
  reviewer: "ARIADNE_MODEL_REVIEWER",
  checker: "ARIADNE_MODEL_CHECKER",
};

/** Model name per role: explicit override, then environment, then default. Empty values count as unset. */
export function resolveModels(env: Env, overrides: Partial<Record<ModelRole, string>> = {}): Record<ModelRole, string> {
  const pick = (role: ModelRole) => overrides[role] || env[ENV_NAMES[role]] || DEFAULT_MODELS[role];
  return { main: pick("main"), child: pick("child"), reviewer: pick("reviewer"), checker: pick("checker") };
}

export interface CreateModelOptions {
  /** Wins over ARIADNE_MODEL_IDLE_TIMEOUT_MS (the CLI's --model-idle-timeout). */
  idleTimeoutMs?: number;
  /** ARIADNE_SEARCH=anthropic: web_search is Anthropic's server tool, with these options (tools/web/anthropicSearch.ts). */
  webSearch?: ServerWebSearch;
}

/** The real model when an API key is set; otherwise null, and the caller decides on a scripted fallback. */
export function createModel(env: Env, options: CreateModelOptions = {}): AnthropicModel | null {
  const apiKey = env.ANTHROPIC_API_KEY;
  if (!apiKey) return null;
  return new AnthropicModel({
    apiKey,
    baseURL: env.ANTHROPIC_BASE_URL || undefined,
    defaultModel: resolveModels(env).main,
    idleTimeoutMs: options.idleTimeoutMs ?? idleTimeoutFromEnv(env),
    ...(options.webSearch && { webSearch: options.webSearch }),
  });
}

/** ARIADNE_MODEL_IDLE_TIMEOUT_MS, when set: a positive whole number of milliseconds. */
export function idleTimeoutFromEnv(env: Env): number | undefined {
  const raw = env.ARIADNE_MODEL_IDLE_TIMEOUT_MS;
  if (!raw) return undefined;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms <= 0) {
    throw new ConfigError(`ARIADNE_MODEL_IDLE_TIMEOUT_MS must be a positive whole number of milliseconds, got "${raw}"`);
  }
  return ms;
}
