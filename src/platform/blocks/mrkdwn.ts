/*
 * Text from users and from the Mint service, made safe for every field Slack renders (blocks and the
 * notification fallback `text` alike). Slack treats `&`, `<` and `>` as control characters everywhere
 * (`<!channel>`, `<@U…>`, `<url|label>`), so they are always escaped; inside *bold*, _italic_ and `code`,
 * the character that would end the span is replaced too, so the text cannot break out of it. Mentions and
 * links the app builds itself (`<@U…>`, `<#C…>`, `<!subteam^S…>`, `<!date^…>`) are added around the
 * escaped text, never through these functions.
 */

/** Escapes the three characters Slack's mrkdwn treats as control characters. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Escapes the control characters that are not escaped yet, leaving `&amp;`, `&lt;` and `&gt;` as they are:
 * for text that mixes escaped parts with raw ones and holds no mention or link of the app's own.
 */
export function escapeStrayMrkdwn(text: string): string {
  return text
    .replace(/&(?!(?:amp|lt|gt);)/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

/**
 * Cuts text to at most `max` UTF-16 code units (what Slack's length limits count), never inside a surrogate
 * pair, marking a cut with an ellipsis.
 */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  let out = '';
  for (const char of text) {
    if (out.length + char.length > max - 1) break;
    out += char;
  }
  return `${out}…`;
}

/**
 * Escapes text for mrkdwn and cuts it to `max` characters of escaped text, never inside an entity such
 * as `&amp;`, marking a cut with an ellipsis.
 */
export function escapeAndCut(text: string, max: number): string {
  const escaped = escapeMrkdwn(text);
  if (escaped.length <= max) return escaped;
  let out = '';
  for (const char of text) {
    const piece = escapeMrkdwn(char);
    if (out.length + piece.length > max - 1) break;
    out += piece;
  }
  return `${out}…`;
}

/** Formatting spans end at a line break: text inside one is kept on one line, without edge spaces. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The span's own marker and backticks (a code span inside could swallow the closing marker) replaced. */
function spanText(text: string, marker: RegExp, replacement: string, max: number): string {
  return escapeAndCut(oneLine(text).replace(marker, replacement).replace(/`/g, "'"), max);
}

/**
 * `*text*` that stays bold whatever the text holds: escaped, on one line, with `*` shown as `∗` (U+2217)
 * so it cannot end the bold. Empty text gives an empty string (Slack shows `**` literally).
 */
export function bold(text: string, max = 3000): string {
  const inner = spanText(text, /\*/g, '∗', Math.max(1, max - 2));
  return inner ? `*${inner}*` : '';
}

/** `_text_` that stays italic whatever the text holds: like bold, with `_` shown as `＿` (U+FF3F). */
export function italic(text: string, max = 3000): string {
  const inner = spanText(text, /_/g, '＿', Math.max(1, max - 2));
  return inner ? `_${inner}_` : '';
}

/**
 * Shows user-supplied text literally inside inline code: escapes it, keeps it on one line and replaces
 * backticks, which would end the code span. `max` bounds the text inside the backticks.
 */
export function inlineCode(text: string, max = 3000): string {
  const clean = escapeAndCut(text.replace(/`/g, "'").replace(/[\r\n\u2028\u2029]+/g, ' '), Math.max(1, max));
  return clean ? `\`${clean}\`` : '';
}

/** A ``` code block ``` of text that cannot end it early: escaped, with backticks replaced. */
export function codeBlock(text: string): string {
  return `\`\`\`${escapeMrkdwn(text.replace(/`/g, "'"))}\`\`\``;
}

/**
 * A URL the app checked (http or https, no spaces), ready to go inside `<…>` or a code block: `|` (which
 * would give the link a label of the service's choosing) and backticks are percent-encoded, which names the
 * same resource, and `&`, `<`, `>` are escaped as Slack asks.
 */
export function linkUrl(url: string): string {
  return escapeMrkdwn(url.replace(/\|/g, '%7C').replace(/`/g, '%60'));
}
