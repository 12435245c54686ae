import type { WebClient } from '@slack/web-api';
import { slackErrorCode } from '../web-api/slack-error-code.js';
import { boundedStepError } from './step-failure.js';
import { numberFieldOf, stringFieldOf } from '../../unknown-fields.js';

/** How a step ends: its outputs, or the error the workflow shows. */
export type StepEnd = { outputs: Record<string, unknown> } | { error: string };

/** Slack's answers meaning the execution is over (or never existed): it can never be ended now. */
const GONE = new Set(['execution_not_in_running_state', 'function_execution_not_found']);
/** The execution's token no longer works: the next token given is tried (the bot token). */
const TOKEN_REFUSED = new Set(['invalid_auth', 'not_authed', 'token_expired', 'token_revoked', 'account_inactive']);
/** Slack refused the outputs themselves: the step is failed instead, saying the work was done. */
const OUTPUTS_REFUSED = new Set(['parameter_validation_failed', 'invalid_arguments']);
/** Slack's own trouble: worth another try in a moment. */
const SLACK_TROUBLE = new Set([
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
  'ratelimited',
]);

const ATTEMPTS = 3;
/** The wait before the second try after Slack's trouble; the third waits twice as long. */
const RETRY_WAIT_MS = 1_000;
/** The longest Retry-After waited out inside one report; a longer one fails the attempt (the caller may retry). */
const MAX_WAIT_MS = 30_000;

/** The longest one report can take: each attempt's Slack deadline (10 s), the waits, and a token fallback. */
export const REPORT_WORST_CASE_MS = (ATTEMPTS + 1) * 10_000 + MAX_WAIT_MS + 2 * 2_000;

/** How one report goes about it. */
export interface ReportOptions {
  /** The tokens tried in turn while Slack refuses one (undefined: the client's own); the client's own alone when not given. */
  tokens?: ReadonlyArray<string | undefined>;
  /**
   * The wait before the second try after Slack's trouble, twice it before the third: RETRY_WAIT_MS unless a test
   * shortens it (TestSeams.slack.retryWaitMs, which the wiring hands on as `slackCalls.retryWaitMs`).
   */
  retryWaitMs?: number;
}

/**
 * Tells Slack how a step ended (functions.completeSuccess / completeError), and makes sure it is heard: Slack's
 * own trouble (5xx, network, rate limits) is tried again a few times; a refused token falls back to the next
 * of `tokens`; outputs Slack refuses turn into a failure that says the work was done. Resolves `gone` when
 * Slack no longer knows the execution; rejects when Slack could not be told.
 */
export async function reportStepEnd(
  client: WebClient,
  executionId: string,
  end: StepEnd,
  options: ReportOptions = {},
): Promise<'reported' | 'gone'> {
  const tokens = [...new Set(options.tokens ?? [undefined])]; // a token missing from the context is not tried twice
  const firstWaitMs = options.retryWaitMs ?? RETRY_WAIT_MS;
  let token = 0;
  let current = end;
  for (let attempt = 1; ; attempt += 1) {
    try {
      await send(client, executionId, current, tokens[token]);
      return 'reported';
    } catch (error) {
      const code = slackErrorCode(error);
      if (code && GONE.has(code)) return 'gone';
      if (code && TOKEN_REFUSED.has(code) && token < tokens.length - 1) {
        token += 1;
        continue;
      }
      if (code && OUTPUTS_REFUSED.has(code) && 'outputs' in current) {
        current = {
          error: `Mintlink did the work, but Slack refused the step's outputs (${code}), so the workflow cannot use them. Tell Mintlink's operator.`,
        };
        continue;
      }
      const wait = retryWaitMs(error, attempt, firstWaitMs);
      if (attempt >= ATTEMPTS || wait === undefined) throw error;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

function send(client: WebClient, executionId: string, end: StepEnd, token: string | undefined) {
  const auth = token ? { token } : {};
  return 'outputs' in end
    ? client.functions.completeSuccess({ ...auth, function_execution_id: executionId, outputs: end.outputs })
    : client.functions.completeError({
        ...auth,
        function_execution_id: executionId,
        error: boundedStepError(end.error),
      });
}

/**
 * How long to wait before trying again, or undefined when trying again cannot help: Slack's Retry-After when it
 * gave one, else `firstWaitMs` more at each attempt.
 */
function retryWaitMs(error: unknown, attempt: number, firstWaitMs: number): number | undefined {
  const errorCode = stringFieldOf(error, 'code');
  if (errorCode === 'slack_webapi_rate_limited_error') {
    const ms = (numberFieldOf(error, 'retryAfter') ?? 1) * 1000;
    return ms <= MAX_WAIT_MS ? ms : undefined;
  }
  if (errorCode === 'slack_webapi_request_error') return firstWaitMs * attempt; // network, deadline
  if (errorCode === 'slack_webapi_http_error')
    return (numberFieldOf(error, 'statusCode') ?? 500) >= 500 ? firstWaitMs * attempt : undefined;
  const code = slackErrorCode(error);
  return code && SLACK_TROUBLE.has(code) ? firstWaitMs * attempt : undefined;
}
