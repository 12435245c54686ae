/*
 * Slack's mrkdwn as Slack's clients show it, turned into HTML for the sandbox's page: *bold*, _italic_,
 * ~strike~, `code`, ```code blocks```, > quotes, <links|labels>, user, channel and user-group mentions shown
 * by name, <!date^...> shown in the reader's time zone (the page formats <time> elements), emoji
 * shortcodes, and the three entities Slack uses for its control characters (&amp; &lt; &gt;) shown as the
 * characters they stand for. Everything that reaches the page is HTML-escaped here: no text from the app, the
 * Mint service or a user can become markup.
 *
 * Hand-written: the mrkdwn renderers on npm either show Slack's entities escaped twice (`&lt;` appears as
 * "&lt;"), or pass raw `<tags>` through as HTML, and none resolves mentions to names from a directory.
 */

export interface Directory {
  user(id: string): string | undefined;
  channel(id: string): string | undefined;
  group(id: string): string | undefined;
  /** A permalink of this workspace as a path of the page (opened there, as Slack's client opens its own). */
  permalink?(url: string): string | undefined;
}

/** The shortcodes the app's texts use (and a few common ones), as Slack shows them. */
const EMOJI: Record<string, string> = {
  warning: '⚠️',
  no_entry: '⛔',
  no_entry_sign: '🚫',
  hourglass_flowing_sand: '⏳',
  hourglass: '⌛',
  x: '❌',
  white_check_mark: '✅',
  heavy_check_mark: '✔️',
  ballot_box_with_check: '☑️',
  arrow_forward: '▶️',
  page_facing_up: '📄',
  memory: '📝',
  heavy_multiplication_x: '✖️',
  double_vertical_bar: '⏸️',
  rotating_light: '🚨',
  information_source: 'ℹ️',
  inbox_tray: '📥',
  arrows_counterclockwise: '🔄',
  rocket: '🚀',
  bell: '🔔',
  link: '🔗',
  wave: '👋',
  tada: '🎉',
  lock: '🔒',
  mag: '🔍',
  gear: '⚙️',
  busts_in_silhouette: '👥',
  bust_in_silhouette: '👤',
  clipboard: '📋',
  eyes: '👀',
  thumbsup: '👍',
  '+1': '👍',
  '-1': '👎',
  raised_hand: '✋',
  star: '⭐',
  sparkles: '✨',
  moneybag: '💰',
  credit_card: '💳',
  email: '📧',
  calendar: '📅',
  clock3: '🕒',
  stopwatch: '⏱️',
  wastebasket: '🗑️',
  pencil2: '✏️',
  bar_chart: '📊',
  robot_face: '🤖',
  electric_plug: '🔌',
};

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Slack's three entities back to the characters they stand for. */
function decodeEntities(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

export function emojify(html: string): string {
  return html.replace(/:([a-z0-9_+-]+):/g, (whole, name: string) => EMOJI[name] ?? whole);
}

/** plain_text as Slack shows it: the text itself, emoji shortcodes turned into emoji when `emoji` is on. */
export function plainTextHtml(text: string, emoji = true): string {
  const escaped = escapeHtml(text).replace(/\n/g, '<br>');
  return emoji ? emojify(escaped) : escaped;
}

const SAFE_URL = /^(https?:|mailto:)/i;

export function mrkdwnHtml(text: string, directory: Directory): string {
  const held: string[] = [];
  const hold = (html: string) => `\uE000${held.push(html) - 1}\uE000`;

  // Code blocks first: nothing inside them is formatted.
  let out = text.replace(/```([\s\S]*?)```/g, (_, code: string) =>
    hold(`<pre class="code-block">${escapeHtml(decodeEntities(code.replace(/^\n/, '')))}</pre>`),
  );
  // Control sequences: mentions, dates and links.
  out = out.replace(/<([^<>\n]+)>/g, (_, inner: string) => hold(controlSequence(inner, directory)));
  // Inline code.
  out = out.replace(/`([^`\n]+)`/g, (_, code: string) => hold(`<code>${escapeHtml(decodeEntities(code))}</code>`));
  // What is left is text: the entities become characters, and then the characters are escaped for HTML.
  out = escapeHtml(decodeEntities(out));
  out = emphasis(out, '\\*', 'b');
  out = emphasis(out, '_', 'i');
  out = emphasis(out, '~', 's');
  out = emojify(out);
  out = quotes(out);
  out = out.replace(/\n/g, '<br>');
  // Held pieces may hold others (a link's label with a mention is not built by Slack either): one pass.
  return out.replace(/\uE000(\d+)\uE000/g, (_, i: string) => held[Number(i)] ?? '');
}

/** Slack's emphasis: the markers must touch the text and stand at a word's edge. */
function emphasis(html: string, marker: string, tag: string): string {
  const pattern = new RegExp(
    `(^|[\\s(\\[{'"“‘.,;:!?\\-/]|\\uE000)${marker}(?=\\S)([^\\n]*?\\S)${marker}(?=$|[\\s)\\]}'"”’.,;:!?\\-/]|\\uE000)`,
    'g',
  );
  return html.replace(pattern, (_, before: string, inner: string) => `${before}<${tag}>${inner}</${tag}>`);
}

/** Lines starting with `>` (escaped as &gt; by now) are a quote. */
function quotes(html: string): string {
  const lines = html.split('\n');
  const out: string[] = [];
  let quote: string[] = [];
  const flush = () => {
    if (quote.length > 0) out.push(`<blockquote>${quote.join('<br>')}</blockquote>`);
    quote = [];
  };
  for (const line of lines) {
    const match = /^&gt;\s?(.*)$/.exec(line);
    if (match) quote.push(match[1] ?? '');
    else {
      flush();
      out.push(line);
    }
  }
  flush();
  return out.join('\n').replace(/<\/blockquote>\n/g, '</blockquote>');
}

function controlSequence(inner: string, directory: Directory): string {
  const [target = '', ...rest] = inner.split('|');
  const label = rest.length > 0 ? decodeEntities(rest.join('|')) : undefined;
  if (target.startsWith('@')) {
    const id = target.slice(1);
    const name = directory.user(id) ?? label ?? id;
    return `<span class="mention" data-user="${escapeHtml(id)}">@${escapeHtml(name)}</span>`;
  }
  if (target.startsWith('#')) {
    const id = target.slice(1);
    const name = directory.channel(id) ?? label ?? id;
    return `<span class="mention channel" data-channel="${escapeHtml(id)}">#${escapeHtml(name)}</span>`;
  }
  if (target.startsWith('!subteam^')) {
    const id = target.slice('!subteam^'.length);
    const name = directory.group(id) ?? label?.replace(/^@/, '') ?? id;
    return `<span class="mention">@${escapeHtml(name)}</span>`;
  }
  if (target.startsWith('!date^')) {
    const [, seconds = '', format = '', link] = target.split('^');
    const fallback = label ?? '';
    const time = `<time data-ts="${escapeHtml(seconds)}" data-format="${escapeHtml(format)}">${escapeHtml(fallback)}</time>`;
    return link && SAFE_URL.test(link)
      ? `<a href="${escapeHtml(link)}" target="_blank" rel="noopener">${time}</a>`
      : time;
  }
  if (target === '!here' || target === '!channel' || target === '!everyone')
    return `<span class="mention">@${target.slice(1)}</span>`;
  const url = decodeEntities(target);
  const inWorkspace = directory.permalink?.(url);
  if (inWorkspace) return `<a href="${escapeHtml(inWorkspace)}" class="permalink">${escapeHtml(label ?? url)}</a>`;
  if (SAFE_URL.test(url))
    return `<a href="${escapeHtml(url)}" target="_blank" rel="noopener">${escapeHtml(label ?? url)}</a>`;
  // Not a sequence Slack knows: shown as written.
  return escapeHtml(`<${decodeEntities(inner)}>`);
}
