/** The events that end an executor (settled, cancelled, failed): its stream takes no new work after one. */
export const FINAL_EVENT_TYPES: ReadonlySet<string> = new Set(["settled", "cancelled", "failed"]);

export const isFinalEvent = (event: { type: string }): boolean => FINAL_EVENT_TYPES.has(event.type);
