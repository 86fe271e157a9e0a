/**
 * A map of at most `max` entries that forgets the least recently used one
 * first, so hot entries stay however many cold ones pass through. A Map keeps
 * insertion order: a hit moves its entry to the end, eviction takes the front.
 */
export function lruMap<K, V>(max: number) {
  const entries = new Map<K, V>();
  return {
    get(key: K): V | undefined {
      const value = entries.get(key);
      if (value === undefined) return undefined;
      entries.delete(key);
      entries.set(key, value);
      return value;
    },
    set(key: K, value: V): void {
      entries.delete(key);
      entries.set(key, value);
      while (entries.size > max) entries.delete(entries.keys().next().value as K);
    },
    delete: (key: K) => entries.delete(key),
    entries: () => entries.entries(),
    get size() {
      return entries.size;
    },
  };
}
