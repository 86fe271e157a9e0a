export type { Draft, ExecutorView, Governance, LimitName, ModelCallPlan, Reservation, ToolCallRequest, Verdict } from "./port.ts";
export {
  Caps,
  type CapsRequest,
  CONFIGURED_CAPS,
  ExecutorCaps,
  INVESTIGATE_PROFILES,
  REMIND_THRESHOLDS,
  executorCapsFor,
  parseCaps,
  resolveCaps,
} from "./config.ts";
export { PRICES, type Price, type PriceTable, type PricedUsage, WEB_SEARCH_MICROS, allInputTokens, costMicros, priceOf, usageCostMicros } from "./prices.ts";
export type { BudgetTotals } from "./budgetTotals.ts";
export { type RunBudget, openRunBudget, readRunBudget } from "./openRunBudget.ts";
export { type ReserveRequest, type ReserveResult, reserveBudget } from "./reserveBudget.ts";
export { type SettleRequest, settleBudget } from "./settleBudget.ts";
export { type Clocks, type FetchUsage, type Stop, clockStop, fetchStop, reservationStop, searchAllowance, toolStop, turnStop, turnToolStop } from "./checkLimits.ts";
export { type Downtime, downtimeBetween, downtimesOf } from "./hostedTime.ts";
export { type ChildrenView, type Reminder, budgetReminders, childLimitReminder, childReminders, thresholdKey, timeReminders } from "./remindRules.ts";
export {
  DEFAULT_REVIEWER,
  type ReviewDecision,
  type ReviewMode,
  type ReviewPolicyState,
  type ReviewRequest,
  type ReviewerConfig,
  foldReviews,
  reviewKey,
  reviewPolicy,
} from "./reviewPolicy.ts";
export { type RunGovernance, type RunGovernanceOptions, createRunGovernance } from "./createRunGovernance.ts";
export { type Post, raiseReminders } from "./raiseReminders.ts";
export { type RunFacts, type RunInfo, runFacts } from "./runFacts.ts";
