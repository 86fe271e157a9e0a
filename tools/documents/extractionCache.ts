import type { ExtractedDocument } from "./extractDocument.ts";

/**
 * The last few extractions, by content hash, format and pages: paging through a
 * long PDF with offset would otherwise parse the whole file again on every call.
 * Content-addressed keys make a stale entry impossible.
 */
export class ExtractionCache {
  private readonly entries = new Map<string, Promise<ExtractedDocument>>();
  constructor(private readonly size = 8) {}

  get(key: string, extract: () => Promise<ExtractedDocument>): Promise<ExtractedDocument> {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit;
    }
    const pending = extract();
    // A failed extraction is not kept: the next call tries again and reports its own error.
    pending.catch(() => this.entries.delete(key));
    this.entries.set(key, pending);
    while (this.entries.size > this.size) this.entries.delete(this.entries.keys().next().value!);
    return pending;
  }
}
