import { extractCitationMarkers } from "../handoff/index.ts";
export { type ToolExchange, exchanges, lastResultWasError, resultsOf, turnsTaken } from "../models/requestView.ts";

/** The citation markers a tool output printed, as the handoff contract recognises them. */
export const citationsIn = (text: string): string[] => [...new Set(extractCitationMarkers(text))];
