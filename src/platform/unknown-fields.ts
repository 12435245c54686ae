/*
 * Reading what the app did not make (a thrown error, parsed JSON, a payload's field) without a type assertion:
 * each value is checked where it is read, and what is not of the expected type reads as undefined.
 */

/** Whether `value` is an object whose properties can be read (a parsed JSON object, an error). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** `value[path[0]][path[1]]…`, each step only through an object: unknown, for the caller to check. */
export function fieldOf(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const key of path) current = isRecord(current) ? current[key] : undefined;
  return current;
}

/** The field at `path` when it is a string (an error's `code`, Slack's `data.error`). */
export function stringFieldOf(value: unknown, ...path: string[]): string | undefined {
  const field = fieldOf(value, ...path);
  return typeof field === 'string' ? field : undefined;
}

/** The field at `path` when it is a number (an HTTP error's `statusCode`, Slack's `retryAfter`). */
export function numberFieldOf(value: unknown, ...path: string[]): number | undefined {
  const field = fieldOf(value, ...path);
  return typeof field === 'number' ? field : undefined;
}

/** What a thrown value says: an Error's message, or the value as text (JavaScript may throw anything). */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
