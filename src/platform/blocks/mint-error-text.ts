import type { MintApiError } from '../mint/mint-api-error.js';
import { escapeMrkdwn } from './mrkdwn.js';

/**
 * What a Mint service failure means for the user, by kind, as mrkdwn (safe to show as it is). `thing` names what was being done, e.g.
 * "the mint link"; `created` how it would have ended, e.g. "created" (omit it for reads, which change
 * nothing).
 */
export function mintErrorText(error: MintApiError, thing: string, created?: string): string {
  // The service's own words are shown as text, never as markup (they could hold <!channel> or a link).
  const said = error.details.serviceMessage ? ` It said: “${escapeMrkdwn(error.details.serviceMessage)}”` : '';
  const unknown =
    error.details.outcomeUnknown && created
      ? ` ${capitalize(thing)} may have been ${created} anyway: check before trying again.`
      : '';
  const nothing = created ? ` Nothing was ${created}.` : '';
  switch (error.kind) {
    case 'rejected': {
      const advice = said || ' Check the values and try again.';
      return `The Mint service rejected the request (HTTP ${error.status ?? '4xx'}).${advice}`;
    }
    case 'unauthorized':
      return (
        `The Mint service refused the app's credentials (HTTP ${error.status ?? 401}). ` +
        `${error.details.advice ?? "Ask the app's operator to check MINT_API_KEY."}${nothing}`
      );
    case 'not_found': {
      const advice = said || ' Check the identifiers and try again.';
      return `The Mint service could not find what the request refers to (HTTP 404).${advice}`;
    }
    case 'rate_limited': {
      const wait = error.details.retryAfterSeconds;
      const when = wait ? ` Try again in ${formatWait(wait)}.` : ' Try again in a minute.';
      return `The Mint service is receiving too many requests.${when}${nothing}`;
    }
    case 'unavailable':
      return unavailableText(error, said, unknown, nothing);
    case 'timeout':
      return `${error.message}${unknown || ' Try again in a moment.'}`;
    case 'network':
      if (error.details.addressRefused)
        return `The app did not connect to the Mint service: ${escapeMrkdwn(error.message)}${error.details.advice ? ` ${error.details.advice}` : ''}${nothing}`;
      return `The app could not reach the Mint service.${unknown || `${nothing} Try again in a moment.`}`;
    case 'bad_response':
      return `The Mint service answered in a way the app could not read.${unknown}`;
  }
}

/**
 * With a status, the service answered 5xx. Without, the app held the request back: the service asked it to
 * wait (then it said how long), or the circuit breaker is open after repeated failures.
 */
function unavailableText(error: MintApiError, said: string, unknown: string, nothing: string): string {
  if (error.status !== undefined) {
    return (
      `The Mint service is unavailable right now (HTTP ${error.status}). Try again in a few minutes.` +
      `${said}${unknown}`
    );
  }
  const wait = error.details.retryAfterSeconds;
  if (wait) {
    return `The Mint service is unavailable and asked the app to wait: try again in ${formatWait(wait)}.${nothing}`;
  }
  return 'The Mint service has been failing; the app paused calls for a few seconds: try again in a moment.' + nothing;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function formatWait(seconds: number): string {
  if (seconds < 90) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  return `${Math.ceil(seconds / 60)} minutes`;
}
