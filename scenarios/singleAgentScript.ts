import { renderConsumedHandoff, renderDelegatedTask } from "../actors/request/prompts.ts";
import type { ScriptPolicy, ScriptStep, ScriptedReply } from "../models/index.ts";
import type { Message, ModelRequest, ToolUseBlock } from "../models/types.ts";

/**
 * A scenario's scripted policy as one single agent (`--single-agent`): the same
 * work as the delegated run, done in one context. Where the delegated Main
 * delegates, the single agent does each delegated task itself, one after the
 * other, by the scenario's own Child script; where the Child would hand off, it
 * keeps the findings and goes on; Main's answer then cites those findings by
 * the agent's own executor id, with the findings as its evidence.
 *
 * Pure in the request, like every scripted policy: the conversation so far is
 * replayed through the scenario's Main and Child scripts to find the next step,
 * so a rebuilt transcript asks for the same one. Only judgment is scripted.
 */
export function singleAgentPolicy(policy: ScriptPolicy, routes: Routes = {}): ScriptPolicy {
  return (request, callIndex) => nextStep(policy, routes, request, callIndex);
}

/**
 * URLs a delegated task names that the agent can only reach by a page linking
 * them (the runtime fetches only URLs an executor has seen): the page to fetch
 * first. The delegated Main writes such URLs into a Child's task, which makes
 * them the Child's to fetch; the single agent has to get there itself.
 */
export type Routes = Readonly<Record<string, string>>;

interface Turn {
  assistant: Message;
  /** The tool results (and anything delivered with them) that answered it. */
  user: Message | undefined;
}

/** A finished delegated task: the handoff its Child script gave, as that script wrote it. */
type Handoff = Record<string, unknown> & { findings?: unknown[] };

async function nextStep(policy: ScriptPolicy, routes: Routes, request: ModelRequest, callIndex: number): Promise<ScriptStep> {
  const [question, ...rest] = request.messages;
  const turns = turnsOf(rest);
  let taken = 0;
  const mainView: Message[] = [question!];
  const done: Handoff[] = [];
  for (;;) {
    const reply = await policy({ ...request, messages: mainView }, callIndex);
    if (!isReply(reply)) return reply;
    const uses = reply.content.filter((b): b is ToolUseBlock => b.type === "tool_use");
    const delegations = uses.filter((u) => u.name === "delegate");
    const answer = uses.find((u) => u.name === "answer");
    if (answer) return answerCitingOwnFindings(answer.input, done, ownExecutorId(request));
    if (delegations.length === 0) {
      if (taken === turns.length) return reply;
      mainView.push(...replayed(turns[taken++]!));
      continue;
    }
    // Each delegated task in turn, in this one context, by the Child's script.
    const results: { use: ToolUseBlock; handoff: Handoff }[] = [];
    for (const d of delegations) {
      const input = d.input as { question: string; context: string; done_when: string; profile: string };
      const task = renderDelegatedTask({ question: input.question, context: input.context, doneWhen: input.done_when });
      for (const [target, via] of Object.entries(routes)) {
        if (!task.includes(target) || turns.slice(0, taken).some((t) => fetches(t, via))) continue;
        if (taken === turns.length) return { content: [{ type: "tool_use", name: "web_fetch", input: { url: via } }] };
        taken++;
      }
      const childView: Message[] = [{ role: "user", content: task }];
      for (;;) {
        const step = await policy({ ...request, system: methodHeading(input.profile), tools: request.tools.filter((t) => t.name !== "answer"), messages: childView }, callIndex);
        if (!isReply(step)) return step;
        const handoff = step.content.find((b): b is ToolUseBlock => b.type === "tool_use" && b.name === "handoff");
        if (handoff) {
          results.push({ use: { ...d, id: `delegated-${done.length + results.length}` }, handoff: handoff.input as Handoff });
          break;
        }
        if (taken === turns.length) return step;
        childView.push(...replayed(turns[taken++]!));
      }
    }
    // What the delegated Main would have read: the handoffs, as delegate results.
    mainView.push({ role: "assistant", content: results.map((r) => r.use) });
    mainView.push({
      role: "user",
      content: results.map((r, i) => ({ type: "tool_result" as const, tool_use_id: r.use.id, content: renderConsumedHandoff(findingSetId(done.length + i), r.handoff) })),
    });
    done.push(...results.map((r) => r.handoff));
  }
}

const isReply = (step: ScriptStep): step is ScriptedReply => typeof step === "object" && !(step instanceof Error);

function turnsOf(messages: Message[]): Turn[] {
  const turns: Turn[] = [];
  messages.forEach((m, i) => {
    if (m.role === "assistant") turns.push({ assistant: m, user: messages[i + 1]?.role === "user" ? messages[i + 1] : undefined });
  });
  return turns;
}

const fetches = (t: Turn, url: string) =>
  t.assistant.role === "assistant" && t.assistant.content.some((b) => b.type === "tool_use" && b.name === "web_fetch" && (b.input as { url?: unknown }).url === url);

const replayed = (t: Turn): Message[] => (t.user ? [t.assistant, t.user] : [t.assistant]);

/** Stands for the k-th delegated task's findings while Main's script reads them; replaced by the agent's own id in the answer. */
const findingSetId = (k: number) => `delegated-task-${k}`;

/** The heading a Child script tells its method by (the profile's title, as its profile file begins). */
const methodHeading = (profile: string) => `# ${profile.charAt(0).toUpperCase()}${profile.slice(1).replace(/-/g, " ")}`;

/** The agent's own executor id, as the narrowed answer tool names it (actors/request/evidencedAnswer.ts). */
function ownExecutorId(request: ModelRequest): string {
  const spec = JSON.stringify(request.tools.find((t) => t.name === "answer")?.input_schema ?? {});
  const id = /"executor":\{[^{}]*"const":"([^"]+)"/.exec(spec)?.[1];
  if (!id) throw new Error("the answer tool names no executor id: is this a single-agent run?");
  return id;
}

/**
 * Main's answer with each citation of the k-th task's finding i made a
 * citation of the agent's own finding (offset of task k) + i, and the tasks'
 * findings joined as its evidence.
 */
function answerCitingOwnFindings(input: unknown, handoffs: Handoff[], self: string): ScriptedReply {
  const offsets = handoffs.map((_, k) => handoffs.slice(0, k).reduce((n, h) => n + (h.findings?.length ?? 0), 0));
  const answer = input as { summary: string; sections: { heading: string; claims: { citations?: { executor: string; finding: number }[] }[] }[] };
  const sections = answer.sections.map((s) => ({
    ...s,
    claims: s.claims.map((c) => ({
      ...c,
      citations: (c.citations ?? []).map((cite) => {
        const k = handoffs.findIndex((_, i) => findingSetId(i) === cite.executor);
        return k < 0 ? cite : { executor: self, finding: offsets[k]! + cite.finding };
      }),
    })),
  }));
  const summary = answer.summary.replace(/from (\w+) Child(ren)?'s handoffs?/, "from the work of one single agent (no Children)");
  return { content: [{ type: "tool_use", name: "answer", input: { summary, sections, evidence: joined(handoffs) } }] };
}

/** The delegated tasks' handoffs as one: the single agent's evidence. */
function joined(handoffs: Handoff[]): Record<string, unknown> {
  const all = <T>(key: string) => handoffs.flatMap((h) => (h[key] as T[] | undefined) ?? []);
  const basis = (key: string) => [...new Set(handoffs.flatMap((h) => ((h.measurementBasis as Record<string, string[]> | undefined)?.[key] ?? []) as string[]))];
  const states = handoffs.map((h) => h.executionState);
  return {
    summary: `(scripted) Single agent, ${handoffs.length} tasks done in one context: ${handoffs.map((h) => String(h.summary)).join(" | ")}`.slice(0, 1200),
    findings: all("findings"),
    measurementBasis: {
      sources: basis("sources"),
      dates: basis("dates"),
      units: basis("units"),
      scope: handoffs.map((h) => (h.measurementBasis as { scope?: string } | undefined)?.scope ?? "").filter(Boolean).join(" | "),
    },
    artifacts: all("artifacts"),
    gaps: all("gaps"),
    executionState: states.length && states.every((s) => s === "completed") ? "completed" : "partial",
    confidence: "medium",
    caveats: [...new Set(all<string>("caveats"))],
  };
}
