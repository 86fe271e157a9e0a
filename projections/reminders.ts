import { type Projection, fieldsOf } from "./projection.ts";

export interface ReminderDelivery {
  executorId: string;
  /** The turn whose request carried it. */
  turn: number;
  globalPosition: number;
}

export interface Reminder {
  reminderId: string;
  /** False while only a delivery of it has been read (its raise sits in another stream, read later). */
  raised: boolean;
  key: string;
  text: string;
  /** The executor it was raised for: the one whose stream holds the raise. */
  executorId: string | null;
  raisedAt: number | null;
  deliveries: ReminderDelivery[];
}

export interface ReminderState {
  reminders: Record<string, Reminder>;
}

const blank = (reminderId: string): Reminder => ({ reminderId, raised: false, key: "", text: "", executorId: null, raisedAt: null, deliveries: [] });

/**
 * Reminder delivery: each reminder raised, and every request that carried it
 * (`reminder_delivered`, recorded with the turn). A reminder with no delivery
 * is pending; an undelivered one never counts as shown.
 */
export const reminders: Projection<ReminderState> = {
  name: "reminders",
  initial: () => ({ reminders: {} }),
  evolve(state, event) {
    const type: string = event.type;
    if (type !== "reminder_raised" && type !== "reminder_delivered") return state;
    const d = fieldsOf(event);
    const id = String(d.reminderId);
    const known = state.reminders[id] ?? blank(id);
    let next: Reminder;
    if (type === "reminder_raised") {
      if (known.raised) return state; // the first raise stands; dedup by key is the raiser's job
      next = { ...known, raised: true, key: String(d.key), text: String(d.text), executorId: event.metadata.executorId, raisedAt: event.globalPosition };
    } else {
      const delivery = { executorId: event.metadata.executorId, turn: Number(d.turn), globalPosition: event.globalPosition };
      // Kept in log position order, so the order streams are read in does not matter.
      const deliveries = [...known.deliveries, delivery].sort((a, b) => a.globalPosition - b.globalPosition);
      next = { ...known, deliveries };
    }
    return { reminders: { ...state.reminders, [id]: next } };
  },
};

export type ReminderStatus = "pending" | "delivered";
export const reminderStatus = (r: Reminder): ReminderStatus => (r.deliveries.length > 0 ? "delivered" : "pending");

/** Per executor: reminders raised for it, delivered by it, and still pending for it. */
export function remindersByExecutor(state: ReminderState): Record<string, { raised: string[]; delivered: string[]; pending: string[] }> {
  const out: Record<string, { raised: string[]; delivered: string[]; pending: string[] }> = {};
  const entry = (id: string) => (out[id] ??= { raised: [], delivered: [], pending: [] });
  for (const r of remindersInOrder(state)) {
    if (r.executorId) {
      entry(r.executorId).raised.push(r.reminderId);
      if (!r.deliveries.some((d) => d.executorId === r.executorId)) entry(r.executorId).pending.push(r.reminderId);
    }
    for (const id of new Set(r.deliveries.map((d) => d.executorId))) entry(id).delivered.push(r.reminderId);
  }
  return out;
}

/** Raised reminders by raise position, then those only seen delivered. */
export const remindersInOrder = (state: ReminderState): Reminder[] =>
  Object.values(state.reminders).sort(
    (a, b) => (a.raisedAt ?? Infinity) - (b.raisedAt ?? Infinity) || (a.deliveries[0]?.globalPosition ?? 0) - (b.deliveries[0]?.globalPosition ?? 0) || a.reminderId.localeCompare(b.reminderId),
  );
