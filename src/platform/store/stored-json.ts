import type { z } from 'zod';

/**
 * A JSON column read back through its schema rather than cast: undefined when the text is not JSON or not that
 * shape (a row written by another version, or edited by hand), for the caller to fall back on.
 */
export function parseJson<Schema extends z.ZodType>(text: string, schema: Schema): z.output<Schema> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
