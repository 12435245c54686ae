/** Slack token shapes, scrubbed even when the value is not one we were configured with. */
const SLACK_TOKEN = /\bx(?:ox[abposr]|app)-[A-Za-z0-9-]{6,}/g;
export const REDACTED = '[redacted]';

export type Scrubber = (text: string) => string;

/**
 * Returns a function that replaces every known secret value and anything shaped like a Slack token.
 * Applied to whole log lines and to any text that may reach Slack, so no code path can leak a secret.
 */
export function createSecretScrubber(secrets: readonly string[]): Scrubber {
  // Longest first so a secret that contains another is replaced whole. Short values are skipped: they
  // would redact ordinary words and cannot be real credentials.
  const values = [...new Set(secrets)].filter((s) => s.length >= 6).sort((a, b) => b.length - a.length);
  const pattern = values.length > 0 ? new RegExp(values.map(escapeRegExp).join('|'), 'g') : undefined;
  return (text) => {
    const scrubbed = pattern ? text.replace(pattern, REDACTED) : text;
    return scrubbed.replace(SLACK_TOKEN, REDACTED);
  };
}

function escapeRegExp(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
