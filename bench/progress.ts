/** A bench's progress line, marked so it reads apart from the figures it prints. */
export function progress(message: string): void {
  console.log(`· ${message}`);
}

/** `--repeat=N` (default 3): how many rounds a bench takes the median of; anything but a positive integer is refused. */
export function repeatFlag(argv: readonly string[], bench: string): number {
  const given = argv.find((a) => a.startsWith("--repeat="))?.slice(9);
  const repeat = Number(given ?? 3);
  if (!Number.isInteger(repeat) || repeat < 1) throw new Error(`${bench}: --repeat must be a positive integer, not "${given}"`);
  return repeat;
}
