/**
 * Bulk job ids (`BK-` and six random characters) as numbered placeholders, `BK-‹1›`, the same id keeping its
 * number within one screen: what the screen kit's `stabilize` does for deletion requests' `DR-` ids, for the
 * golden screens that show a job.
 */
export function stableJobIds(text: string): string {
  const seen = new Map<string, number>();
  return text.replace(/\bBK-[A-Z0-9]{6}\b/g, (id) => {
    if (!seen.has(id)) seen.set(id, seen.size + 1);
    return `BK-‹${seen.get(id)}›`;
  });
}
