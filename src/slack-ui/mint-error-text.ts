import type { MintApiError } from '../mint-api/mint-api-error.js';

/**
 * What a Mint service failure means for the user, by kind. `thing` names what was being done, e.g.
 * "the mint link"; `created` how it would have ended, e.g. "created" (omit it for reads, which change
 * nothing).
 */
export function mintErrorText(error: MintApiError, thing: string, created?: string): string {
  const said = error.details.serviceMessage ? ` It said: “${error.details.serviceMessage}”` : '';
  const unknown = error.details.outcomeUnknown && created
    ? ` ${capitalize(thing)} may have been ${created} anyway: check before trying again.`
    : '';
  const nothing = created ? ` Nothing was ${created}.` : '';
  switch (error.kind) {
    case 'rejected':
      return `The Mint service rejected the request (HTTP ${error.status ?? '4xx'}).${said || ' Check the values and try again.'}`;
    case 'unauthorized':
      return `The Mint service refused the app's credentials (HTTP ${error.status ?? 401}). Ask the app's operator to check MINT_API_KEY.${nothing}`;
    case 'not_found':
      return `The Mint service could not find what the request refers to (HTTP 404).${said || ' Check the identifiers and try again.'}`;
    case 'rate_limited': {
      const wait = error.details.retryAfterSeconds;
      return `The Mint service is receiving too many requests.${wait ? ` Try again in ${formatWait(wait)}.` : ' Try again in a minute.'}${nothing}`;
    }
    case 'unavailable':
      if (error.status === undefined) return `The Mint service is busy: too many requests are waiting for it. Try again in a moment.${nothing}`;
      return `The Mint service is unavailable right now (HTTP ${error.status}). Try again in a few minutes.${said}${unknown}`;
    case 'timeout':
      return `${error.message}${unknown || ' Try again in a moment.'}`;
    case 'network':
      return `The app could not reach the Mint service.${unknown || `${nothing} Try again in a moment.`}`;
    case 'bad_response':
      return `The Mint service answered in a way the app could not read.${unknown}`;
  }
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function formatWait(seconds: number): string {
  if (seconds < 90) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  return `${Math.ceil(seconds / 60)} minutes`;
}
