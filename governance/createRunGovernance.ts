import { type Clock, type IdGenerator, randomId, systemClock } from "../core/clock.ts";
import type { Database } from "../db/openDatabase.ts";
import type { RecordedEvent } from "../events/index.ts";
import { type Clocks, type Stop, WEB_FETCH, clockStop, fetchStop, reservationStop, searchAllowance, turnStop, turnToolStop } from "./checkLimits.ts";
import { fetchUsage } from "../db/fetchUsage.ts";
import { downtimeBetween } from "./hostedTime.ts";
import { type Caps, CONFIGURED_CAPS, INVESTIGATE_PROFILES, REMIND_THRESHOLDS, executorCapsFor } from "./config.ts";
import { type RunBudget, openRunBudget } from "./openRunBudget.ts";
import type { ExecutorView, ToolCallRequest } from "./executorView.ts";
import type { Draft, Governance, ModelCallPlan, Reservation, Verdict } from "./port.ts";
import { PRICES, type PriceTable, type PricedUsage, WEB_SEARCH_MICROS, allInputTokens, costMicros, priceOf, usageCostMicros } from "./prices.ts";
import { searchUsage } from "../db/searchUsage.ts";
import { type Post, raiseReminders } from "./raiseReminders.ts";
import { type Reminder, budgetReminders, childLimitReminder, childReminders, timeReminders } from "./remindRules.ts";
import { reserveBudget } from "./reserveBudget.ts";
import { DEFAULT_REVIEWER, type ReviewDecision, type ReviewRequest, type ReviewerConfig, foldReviews, reviewPolicy } from "./reviewPolicy.ts";
import { type RunInfo, runFacts } from "./runFacts.ts";
import { settleBudget } from "./settleBudget.ts";

export interface RunGovernanceOptions {
  db: Database;
  /** How reminders reach Main when the executor being governed is not Main. */
  post: Post;
  clock?: Clock;
  newId?: IdGenerator;
  /** Caps of the runs this governance opens (resolveCaps); a run's row keeps the caps it opened with. */
  caps?: Caps;
  prices?: PriceTable;
  reviewer?: Partial<ReviewerConfig>;
  investigateProfiles?: readonly string[];
  remindThresholds?: readonly number[];
  /** The lease epoch of the host governing this run: the ledger refuses a stale one, as the log does. */
  epoch?: number;
}

export interface RunGovernance extends Governance {
  /** Opens the run's budget row (also done on first use); returns it as it stands. */
  openRun(runId: string): Promise<RunBudget>;
  readonly reviewer: ReviewerConfig;
  /** The Reviewer policy over a run's events (review_requested / review_delivered), now. */
  review(events: readonly RecordedEvent[], request: ReviewRequest): ReviewDecision;
  /** Resolves when every Child's settle still being written is in the ledger (or has failed). */
  settled(): Promise<void>;
}

/**
 * Governance for every run of a runtime, over the budget ledger (migration
 * 0004). Before a model call: wall clocks, turns, then a reservation of the
 * call's worst case against the run; after it: the settle, as `budget_reserved`
 * and `budget_settled` drafts for the turn's append. Before a tool call: wall
 * clocks, tool calls, delegation depth and fan-out, for a turn's calls together.
 * Remind facts ride along: returned as drafts for Main, posted to Main for
 * anyone else. What an executor has done is read from the view of its log it
 * is given, never remembered here: two processes governing a run agree.
 *
 * Call afterModelCall exactly once per reservation, and append the drafts it
 * returns (re-appending them on a version conflict, never settling again).
 *
 * A Child's settle is written beside its turn's append, not before it: its
 * drafts do not depend on the ledger's answer (its budget reminders are posted
 * to Main), so the turn pays one round trip less. Its next reservation waits
 * for it, and a settle that failed throws there. Crash-safe either way round:
 * the log's `budget_settled` is the truth, and releaseOpenReservations
 * recounts the ledger from it at takeover and run end (a settle arriving after
 * that finds its reservation no longer open and counts nothing).
 */
export function createRunGovernance(options: RunGovernanceOptions): RunGovernance {
  const { db, post } = options;
  const clock = options.clock ?? systemClock;
  const newId = options.newId ?? randomId;
  const prices = options.prices ?? PRICES;
  const investigate = options.investigateProfiles ?? INVESTIGATE_PROFILES;
  const thresholds = options.remindThresholds ?? REMIND_THRESHOLDS;
  const reviewer: ReviewerConfig = { ...DEFAULT_REVIEWER, ...options.reviewer };
  const facts = runFacts(db, clock, options.caps ?? CONFIGURED_CAPS);
  /** Reservations taken and not yet settled, by id: only to refuse settling one twice, never to decide. */
  const open = new Map<string, { runId: string; executorId: string }>();
  /** Children's settles still being written (or failed, kept until the executor's next call throws it), by executor. */
  const settling = new Map<string, Promise<{ error: unknown } | null>>();
  /** An executor's own settle in flight is waited for before it reserves again (its spend counts against its cap). */
  const settledFor = async (executorId: string): Promise<void> => {
    const pending = settling.get(executorId);
    if (!pending) return;
    const failed = await pending;
    if (settling.get(executorId) === pending) settling.delete(executorId);
    if (failed) throw failed.error;
  };

  /** The wall clocks' readings now, hosted time only: what the log says the run spent without a host is left out. */
  const clocksOf = async (state: ExecutorView, run: RunInfo): Promise<Clocks> => {
    const now = clock.now();
    const executorAdmittedAt = await facts.admittedAt(state);
    const downtimes = await facts.downtimes(state.runId);
    return {
      now,
      runOpenedAt: run.openedAt,
      executorAdmittedAt,
      runDownMs: downtimeBetween(downtimes, run.openedAt.getTime(), now.getTime()),
      executorDownMs: downtimeBetween(downtimes, executorAdmittedAt.getTime(), now.getTime()),
    };
  };

  const remind = (state: ExecutorView, run: RunInfo, candidates: Reminder[]) => raiseReminders({ db, post, newId, facts }, state, run, candidates);

  const refuse = async (
    state: ExecutorView,
    run: RunInfo,
    purpose: "model" | "tool",
    stop: Stop,
    extra: { requested?: { tokens: number; costMicros: number }; toolUseId?: string },
    reminders: Draft[],
  ): Promise<Verdict & { ok: false }> => {
    const limitReminders = state.role === "main" ? [] : await remind(state, run, [childLimitReminder(state, stop.limit, stop.reason)]);
    return {
      ok: false,
      limit: stop.limit,
      reason: stop.reason,
      events: [{ type: "budget_refused", data: { purpose, limit: stop.limit, reason: stop.reason, ...extra } }, ...reminders, ...limitReminders],
    };
  };

  return {
    reviewer,

    openRun: (runId) => openRunBudget(db, runId, options.caps ?? CONFIGURED_CAPS, clock.now()),

    review: (events, request) => reviewPolicy(foldReviews(events, reviewer), request, clock.now()),

    async settled() {
      await Promise.all(settling.values());
    },

    async beforeModelCall(state: ExecutorView, plan: ModelCallPlan) {
      await settledFor(state.executorId);
      const run = await facts.run(state.runId);
      const clocks = await clocksOf(state, run);
      const { now } = clocks;
      const executor = executorCapsFor(state, run.caps, investigate).caps;
      const noticed = timeReminders({ openedAt: run.openedAt, wallClockMs: run.caps.run.wallClockMs, downMs: clocks.runDownMs }, now, run.raised, thresholds);
      if (state.role === "main") noticed.push(...childReminders(state.children, run.raised));
      const reminders = await remind(state, run, noticed);

      const stop = clockStop(run.caps, executor, clocks) ?? turnStop(state, executor);
      if (stop) return refuse(state, run, "model", stop, {}, reminders);
      // A call that may search server-side: the run's search budget, read from the log only then.
      const allowance = plan.maxSearches ? searchAllowance(await searchUsage(db, state.runId), plan.maxSearches, run.caps) : null;
      if (allowance?.stop) return refuse(state, run, "model", allowance.stop, {}, reminders);
      const searches = allowance?.searches ?? 0;

      // The reminders raised here go into this call's request: their text is reserved with it.
      const inputTokens = plan.inputTokens + reminderTokens(reminders);
      const amount = {
        tokens: inputTokens + plan.maxTokens,
        // The worst case: every token and every search the call may run.
        costMicros: costMicros(priceOf(plan.model, prices), inputTokens, plan.maxTokens) + searches * WEB_SEARCH_MICROS,
      };
      const reservationId = newId();
      const result = await reserveBudget(db, {
        epoch: options.epoch,
        reservationId,
        runId: state.runId,
        executorId: state.executorId,
        ...amount,
        executorMaxTokens: executor.maxTokens,
      });
      if (result.totals === null) throw new Error(`run ${state.runId} has no budget row`);
      if (!result.ok) {
        return refuse(state, run, "model", reservationStop(result.totals, result.executorSpent, executor.maxTokens, amount), { requested: amount }, reminders);
      }
      const reservation: Reservation = { reservationId, model: plan.model, ...amount };
      open.set(reservation.reservationId, { runId: state.runId, executorId: state.executorId });
      // Waiting on the model counts against the wall clocks: the call may not outlive either.
      const deadline = Math.min(
        run.openedAt.getTime() + (clocks.runDownMs ?? 0) + run.caps.run.wallClockMs,
        clocks.executorAdmittedAt.getTime() + (clocks.executorDownMs ?? 0) + executor.wallClockMs,
      );
      return { ok: true, reservation, deadline, events: reminders, ...(allowance && { searches }) };
    },

    async afterModelCall(state: ExecutorView, reservation: Reservation | null, usage: PricedUsage | null) {
      if (!reservation) return [];
      const taken = open.get(reservation.reservationId);
      if (!taken || taken.executorId !== state.executorId) {
        throw new Error(`reservation ${reservation.reservationId} is not open for executor ${state.executorId}: settle each reservation once`);
      }
      open.delete(reservation.reservationId);
      const inputTokens = usage?.inputTokens ?? 0;
      const outputTokens = usage?.outputTokens ?? 0;
      // Cached input counts as tokens the call used, priced at the cache's rates.
      const spent = usage ?? { inputTokens, outputTokens };
      const actual = { tokens: allInputTokens(spent) + outputTokens, costMicros: usageCostMicros(priceOf(reservation.model, prices), spent) };
      const drafts: Draft[] = [
        {
          type: "budget_reserved",
          data: {
            reservationId: reservation.reservationId,
            purpose: "model",
            model: reservation.model,
            amount: { tokens: reservation.tokens, costMicros: reservation.costMicros },
          },
        },
        { type: "budget_settled", data: { reservationId: reservation.reservationId, actual: { ...actual, inputTokens, outputTokens } } },
      ];
      const settle = async (): Promise<Draft[]> => {
        const totals = await settleBudget(db, {
          epoch: options.epoch,
          reservationId: reservation.reservationId,
          runId: state.runId,
          executorId: state.executorId,
          reserved: { tokens: reservation.tokens, costMicros: reservation.costMicros },
          actual,
        });
        const run = await facts.run(state.runId);
        return remind(state, run, budgetReminders(totals, run.raised, thresholds));
      };
      // Main's reminders ride in its own turn, so its drafts wait for the ledger; a Child's do not.
      if (state.role === "main") return [...drafts, ...(await settle())];
      const { executorId } = state;
      const pending: Promise<{ error: unknown } | null> = settle().then(
        () => {
          if (settling.get(executorId) === pending) settling.delete(executorId);
          return null;
        },
        (error: unknown) => ({ error }),
      );
      settling.set(executorId, pending);
      return drafts;
    },

    async beforeToolCalls(state: ExecutorView, calls: readonly ToolCallRequest[]): Promise<Verdict[]> {
      if (calls.length === 0) return [];
      const run = await facts.run(state.runId);
      const executor = executorCapsFor(state, run.caps, investigate).caps;
      const late = clockStop(run.caps, executor, await clocksOf(state, run));
      // The turn's calls are counted here, against the intents the log holds; nothing is remembered for later.
      const counted = late ? { allowed: 0, stop: late } : turnToolStop(state, calls, run.caps, executor);
      // The run's fetch budget, read from the log only when the turn fetches: the calls before a stop are allowed.
      const fetching = calls.slice(0, counted.allowed).some((c) => c.name === WEB_FETCH);
      const overBudget = fetching ? fetchStop(await fetchUsage(db, state.runId), calls.slice(0, counted.allowed), run.caps) : null;
      const { allowed, stop } = overBudget ? { allowed: overBudget.at, stop: overBudget.stop } : counted;
      const ok: Verdict = { ok: true, events: [] };
      if (!stop) return calls.map(() => ok);
      const refusal = await refuse(state, run, "tool", stop, { toolUseId: calls[allowed]!.toolUseId }, []);
      return calls.map((_, i) => (i < allowed ? ok : i === allowed ? refusal : { ...refusal, events: [] }));
    },
  };
}

/**
 * What the reminders add to a request, estimated like the request itself (a
 * token per four characters of its canonical JSON): the text, JSON-escaped,
 * plus its runtime marker and the block around it.
 */
function reminderTokens(drafts: Draft[]): number {
  let chars = 0;
  for (const d of drafts) if (d.type === "reminder_raised") chars += JSON.stringify(d.data.text).length + REMINDER_BLOCK_CHARS;
  return Math.ceil(chars / 4);
}

/** `{"text":"[Ariadne runtime reminder, not from the user] ","type":"text"}` and a message around it, with room to spare. */
const REMINDER_BLOCK_CHARS = 128;
