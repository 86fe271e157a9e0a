/**
 * Citation markers look like [[corpus:adiv-prospectus#p12]]: a source kind, a
 * colon, and a reference without spaces or brackets. Tools print them in their
 * outputs; the runtime collects them as the executor's citationsSeen.
 */
const MARKER = /\[\[[a-z][a-z0-9_-]*:[^\[\]\s]+\]\]/g;
const WHOLE_MARKER = /^\[\[[a-z][a-z0-9_-]*:[^\[\]\s]+\]\]$/;

export function isCitationMarker(ref: string): boolean {
  return WHOLE_MARKER.test(ref);
}

/** Distinct markers in order of first appearance. */
export function extractCitationMarkers(text: string): string[] {
  return [...new Set(text.match(MARKER) ?? [])];
}
