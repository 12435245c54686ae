import { pino } from 'pino';
import { isDatabaseError } from '../lifecycle/database-error.js';
import { fieldOf, numberFieldOf, stringFieldOf } from '../../unknown-fields.js';

/**
 * An error that is an expected answer rather than a bug (the Mint service refusing or timing out, say) says so
 * with `logStack = false`: its stack only ever points into the client that made it, and writing it cost more
 * than the rest of the line, which made overload worse (`npm run bench`).
 */
export interface ExpectedFailure {
  readonly logStack: false;
}

/**
 * Expected failures are one line with their code, without a stack: the Mint service's answers, Slack's
 * (`invalid_trigger_id`, a rate limit, a refused post), and the database being away. Bugs keep their stack.
 */
export function serializeError(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const slack = slackFailure(error);
  if (slack) return slack;
  if (isDatabaseError(error)) return { type: error.name, message: error.message, code: codeOf(error) };
  if (fieldOf(error, 'logStack') !== false) return pino.stdSerializers.err(error);
  // Not pino's serializer: it formats the stack even to drop it, and formatting is the expensive part.
  const { logStack: _logStack, name: _name, ...fields }: Record<string, unknown> = { ...error }; // name: the type
  return { type: error.name, message: error.message, ...fields };
}

/** The Slack SDK's and Bolt's errors carry a `slack_...` code (and Slack's own error in `data.error`). */
function slackFailure(error: Error): Record<string, unknown> | undefined {
  const code = codeOf(error);
  if (!code?.startsWith('slack_')) return undefined;
  const slackError = stringFieldOf(error, 'data', 'error');
  const statusCode = numberFieldOf(error, 'statusCode');
  return {
    type: error.name,
    message: error.message,
    code,
    ...(slackError ? { slackError } : {}),
    ...(typeof statusCode === 'number' ? { statusCode } : {}),
  };
}

function codeOf(error: Error): string | undefined {
  return stringFieldOf(error, 'code');
}
