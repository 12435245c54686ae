/** "1 customer", "3 customers". */
export function customerCount(n: number): string {
  return `${n} customer${n === 1 ? '' : 's'}`;
}

/** " (2 repeated IDs dropped)", or nothing when none were. */
export function repeatsDropped(n: number): string {
  return n > 0 ? ` (${n} repeated ID${n === 1 ? '' : 's'} dropped)` : '';
}
