import type { RecordedEvent } from "../../events/index.ts";
import { type LiveRunState, foldAll, liveRun } from "../../projections/index.ts";
import { renderLiveView } from "./renderLiveView.ts";
import { type TerminalStream, terminalWriter } from "./terminalWriter.ts";
import { terminalText } from "../../core/sanitizeText.ts";

/** How often the spinner and the elapsed times move while nothing is recorded. */
const TICK_MS = 125;

export interface LiveViewOptions {
  color: boolean;
  /** The clock; default Date.now. */
  now?: () => number;
}

export type LiveView = ReturnType<typeof liveView>;

/**
 * A run's live view on a terminal: the run's events folded as they come
 * (projections/liveRun), each fold drawn in place by the pure renderer, and a
 * tick that keeps the spinner and elapsed times moving during long waits.
 */
export function liveView(terminal: TerminalStream, options: LiveViewOptions) {
  const now = options.now ?? Date.now;
  const writer = terminalWriter(terminal);
  let state: LiveRunState = liveRun.initial();
  let waiting: { text: string; since: number } | null = null;
  let tick = 0;
  let closed = false;
  const draw = () => {
    if (closed) return;
    writer.draw(renderLiveView({ state, now: now(), tick, width: terminal.columns || 80, height: terminal.rows || 24, color: options.color, waiting }));
  };
  const timer = setInterval(() => {
    tick++;
    draw();
  }, TICK_MS);
  timer.unref();
  terminal.on?.("resize", draw);
  draw();
  return {
    /** Folds one of the run's events and redraws. */
    apply(event: RecordedEvent) {
      state = liveRun.evolve(state, event);
      draw();
    },
    /** Folds a batch of the run's events and redraws once. */
    applyAll(events: readonly RecordedEvent[]) {
      for (const event of events) state = liveRun.evolve(state, event);
      if (events.length) draw();
    },
    /** Folds the run's events from scratch (the whole log, with the facts its host recorded itself) and redraws. */
    reset(events: readonly RecordedEvent[]) {
      state = foldAll(liveRun, events);
      draw();
    },
    /** Says what the run waits on that the log cannot show (queued for a worker); null when nothing. */
    waitingOn(text: string | null) {
      if (text !== (waiting?.text ?? null)) waiting = text === null ? null : { text, since: now() };
      draw();
    },
    /** A line that stays, printed above the frame. */
    log(text: string) {
      // The host's lines may quote the log (a reason, a name): escaped as the frame is.
      const line = terminalText(text);
      if (closed) return void terminal.write(`${line}\n`);
      writer.log([line]);
      draw();
    },
    /** Draws the last frame, leaves it on screen and gives the terminal back. */
    close() {
      if (closed) return;
      clearInterval(timer);
      terminal.off?.("resize", draw);
      waiting = null;
      draw();
      closed = true;
      writer.close();
    },
    get state() {
      return state;
    },
  };
}
