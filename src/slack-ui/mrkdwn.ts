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

/**
 * Escapes text for mrkdwn and cuts it to `max` characters of escaped text, never inside an entity such
 * as `&amp;`, marking a cut with an ellipsis.
 */
export function escapeAndCut(text: string, max: number): string {
  const escaped = escapeMrkdwn(text);
  if (escaped.length <= max) return escaped;
  let out = '';
  for (const char of Array.from(text)) {
    const piece = escapeMrkdwn(char);
    if (out.length + piece.length > max - 1) break;
    out += piece;
  }
  return `${out}…`;
}
