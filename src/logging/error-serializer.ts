import { pino } from 'pino';

/**
 * An error that is an expected answer rather than a bug (the Mint service refusing or timing out, say) says so
 * with `logStack = false`: its stack only ever points into the client that made it, and writing it cost more
 * than the rest of the line, which made overload worse (`npm run bench`).
 */
export interface ExpectedFailure {
  readonly logStack: false;
}

export function serializeError(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  if ((error as Partial<ExpectedFailure>).logStack !== false) return pino.stdSerializers.err(error);
  // Not pino's serializer: it formats the stack even to drop it, and formatting is the expensive part.
  const { logStack: _logStack, name: _name, ...fields } = { ...error } as Record<string, unknown>; // name: the type
  return { type: error.name, message: error.message, ...fields };
}
