import { AriadneError, ConfigError } from "../core/errors.ts";
import { sanitizeText } from "../core/sanitizeText.ts";
import { estimateUsage } from "./estimateUsage.ts";
import { scriptedToolUseId } from "./scriptedToolUseId.ts";
import { abortedError, deadlineError } from "./modelCallError.ts";
import { sleep } from "./sleep.ts";
import type { AssistantBlock, CallOptions, Model, ModelRequest, ModelResponse, StopReason, Usage } from "./types.ts";

/** A tool_use block whose id may be left out; the model then derives it from the request (scriptedToolUseId). */
export type ScriptedBlock =
  | { type: "text"; text: string }
  | { type: "tool_use"; name: string; input: unknown; id?: string };

export interface ScriptedReply {
  content: ScriptedBlock[];
  /** Default: "tool_use" when a tool_use block is present, else "end_turn". */
  stopReason?: StopReason;
  /** Overrides the model's usage rule for this reply. */
  usage?: Usage;
}

/** A reply; a string as shorthand for one text block; an Error to be thrown, to script a failure. */
export type ScriptStep = ScriptedReply | string | Error;

/**
 * `callIndex` counts the calls that got past their latency, from 0 (a call
 * aborted while waiting is not counted). May throw to simulate a failed call.
 */
export type ScriptPolicy = (request: ModelRequest, callIndex: number) => ScriptStep | Promise<ScriptStep>;

export type UsageRule = Usage | ((request: ModelRequest, content: AssistantBlock[]) => Usage);

export type ScriptedModelOptions = ({ script: ScriptStep[] } | { policy: ScriptPolicy }) & {
  /** Labels responses `scripted:<name>`; default: the model the request named. */
  name?: string;
  /** Delay before each reply; 0 (the default) sets no timer at all. */
  latencyMs?: number;
  /** Default: estimateUsage, four characters a token. */
  usage?: UsageRule;
  /**
   * Keep every request in `requests` (the default: tests read them). A bench
   * hosting thousands of turns turns it off, or it measures this log: each
   * request holds its system prompt and tool specs.
   */
  keepRequests?: boolean;
};

/** A fixed script ran out: the test or demo needs more replies than it gave. */
export class ScriptExhaustedError extends AriadneError {
  constructor(label: string, calls: number, length: number) {
    super(
      "SCRIPT_EXHAUSTED",
      500,
      `scripted model ${label} got call #${calls} but its script has only ${length} replies; add replies or use a policy`,
    );
  }
}

/**
 * A deterministic Model for tests and offline runs. Every response carries
 * `scripted: true` and a `scripted:` model name, so nothing it says can pass
 * for a real model's output.
 */
export class ScriptedModel implements Model {
  readonly provider = "scripted";
  readonly scripted = true;
  /** Every request received, in order, as given. */
  readonly requests: ModelRequest[] = [];
  private calls = 0;

  private readonly script?: ScriptStep[];
  private readonly policy?: ScriptPolicy;

  constructor(private readonly options: ScriptedModelOptions) {
    const { script, policy } = options as { script?: ScriptStep[]; policy?: ScriptPolicy };
    if ((script === undefined) === (policy === undefined)) {
      throw new ConfigError("ScriptedModel needs exactly one of script or policy");
    }
    this.script = script;
    this.policy = policy;
  }

  async complete(request: ModelRequest, { signal, deadline, onDelta }: CallOptions = {}): Promise<ModelResponse> {
    if (signal?.aborted) throw abortedError(signal.reason);
    if (deadline !== undefined && Date.now() >= deadline) throw deadlineError(deadline);
    if (this.options.keepRequests !== false) this.requests.push(request);
    const latency = this.options.latencyMs ?? 0;
    // Like a real model, a reply slower than the caller's deadline never arrives.
    if (deadline !== undefined && Date.now() + latency >= deadline) {
      await sleep(Math.max(0, deadline - Date.now()), signal);
      throw deadlineError(deadline);
    }
    if (latency > 0) await sleep(latency, signal);
    const step = await this.takeStep(request, this.calls++);
    if (signal?.aborted) throw abortedError(signal.reason);
    if (step instanceof Error) throw step;
    const reply: ScriptedReply = typeof step === "string" ? { content: [{ type: "text", text: step }] } : step;
    // Cleaned as a real model's reply is, so a script can exercise the same path.
    const { value: content, notes } = sanitizeText(reply.content.map((block, i) => this.toAssistantBlock(block, request, i)), "content");
    // A script has no stream: each block is one piece (the response and its listeners say scripted).
    for (const block of onDelta ? content : []) {
      if (block.type === "text") onDelta!({ type: "text", text: block.text });
      else if (block.type === "tool_use") onDelta!({ type: "tool_input", tool: block.name, partialJson: JSON.stringify(block.input) });
    }
    return {
      content,
      stopReason: reply.stopReason ?? (content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn"),
      usage: reply.usage ?? this.usageFor(request, content),
      model: this.label(request),
      scripted: true,
      ...(notes.length ? { sanitized: notes } : {}),
    };
  }

  private takeStep(request: ModelRequest, index: number): ScriptStep | Promise<ScriptStep> {
    if (this.policy) return this.policy(request, index);
    const script = this.script ?? [];
    if (index >= script.length) throw new ScriptExhaustedError(this.label(request), index + 1, script.length);
    return script[index];
  }

  private label(request: ModelRequest): string {
    return `scripted:${this.options.name ?? (request.model || "unnamed")}`;
  }

  private toAssistantBlock(block: ScriptedBlock, request: ModelRequest, index: number): AssistantBlock {
    // Copied, so a caller that edits a response cannot edit the script.
    if (block.type === "text") return { type: "text", text: block.text };
    const id = block.id ?? scriptedToolUseId(request, index);
    return { type: "tool_use", id, name: block.name, input: structuredClone(block.input) };
  }

  private usageFor(request: ModelRequest, content: AssistantBlock[]): Usage {
    const rule = this.options.usage ?? estimateUsage;
    return typeof rule === "function" ? rule(request, content) : { ...rule };
  }
}
