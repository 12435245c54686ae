import { type CustomerIdLimit, customerIdSchema, tooManyCustomerIdsText } from './schemas.js';

/*
 * Customer IDs as people type them (forms, command text, messages), parsed next to their schema so every
 * capability reads them the same way.
 */

/** Customer IDs typed in one box: separated by commas, semicolons, spaces or new lines. */
export function splitCustomerIds(text: string): string[] {
  return text.split(/[\s,;]+/).filter(Boolean);
}

const SHOWN = 5;

/**
 * A sentence naming the malformed and (unless `repeats` is 'allowed') the repeated IDs, or, with a
 * `limit`, saying there are too many (counted without repeats when they are allowed); undefined when all
 * are fine.
 */
export function customerIdProblems(
  ids: readonly string[],
  options: { repeats?: 'refused' | 'allowed'; limit?: CustomerIdLimit } = {},
): string | undefined {
  const malformed = [...new Set(ids.filter((id) => !customerIdSchema.safeParse(id).success))];
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const id of ids) (seen.has(id) ? repeated : seen).add(id);
  const parts: string[] = [];
  if (malformed.length > 0) {
    parts.push(
      `${listed(malformed)} ${malformed.length === 1 ? 'is not a customer ID' : 'are not customer IDs'} (use letters, digits and . _ : @ + -)`,
    );
  }
  const repeatsRefused = options.repeats !== 'allowed';
  if (repeated.size > 0 && repeatsRefused)
    parts.push(`${listed([...repeated])} ${repeated.size === 1 ? 'is' : 'are'} listed twice`);
  if (parts.length > 0) return `${parts.join('; ')}.`;
  const count = repeatsRefused ? ids.length : seen.size;
  return options.limit && count > options.limit.max ? tooManyCustomerIdsText(count, options.limit) : undefined;
}

function listed(ids: string[]): string {
  const shown = ids.slice(0, SHOWN).map((id) => `"${id.length > 40 ? `${id.slice(0, 39)}…` : id}"`);
  return ids.length > SHOWN ? `${shown.join(', ')} and ${ids.length - SHOWN} more` : shown.join(', ');
}

/** The IDs without repeats, first occurrence kept, and how many repeats were dropped. */
export function withoutRepeats(ids: readonly string[]): { ids: string[]; removed: number } {
  const unique = [...new Set(ids)];
  return { ids: unique, removed: ids.length - unique.length };
}
