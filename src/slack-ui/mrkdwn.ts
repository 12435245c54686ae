/** Escapes the three characters Slack's mrkdwn treats as control characters. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Shows user-supplied text literally inside inline code: escapes it and removes backticks, which would
 * end the code span.
 */
export function inlineCode(text: string): string {
  const clean = escapeMrkdwn(text.replace(/`/g, "'"));
  return clean ? `\`${clean}\`` : '';
}
