/*
 * What Slack shows a person, as plain text: modals, messages, App Home and ephemeral messages rendered the way
 * Slack's client renders them, so that a golden screen (test/kit/screens.ts) reads like the screen itself and
 * any change to it is a diff a reviewer can read.
 *
 * How things are written (the same everywhere, so that markup the person would see as characters stands out):
 * - mrkdwn formatting is shown with DOUBLED markers: **bold**, __italic__, ~~strike~~, ``code``, code blocks
 *   between ``` lines, quotes as lines starting with "▌ ". A single *, _, ~ or ` is a character the person sees.
 * - `<@U…>` is `@Display Name`, `<#C…>` is `#channel-name`, `<!subteam^S…>` is `@group-handle`, `<!here>` is
 *   `@here`; one the directory does not know is `@⚠unknown-user:U…` (or -channel, -group): a bug to see.
 * - `<url|label>` is `label (url)`, `<url>` is the url; `<!date^…>` is the date in the VIEWER's time zone
 *   (Slack's tokens: {date_num}, {date}, {date_short}, {date_long}, the _pretty ones, {time}, {time_secs}, {ago}…).
 * - Slack's entities (&amp; &lt; &gt;) are the characters they stand for; emoji shortcodes are emoji.
 * - Buttons are `[ Label ]`, with `(primary)` / `(danger)` after a styled one; inputs show their label,
 *   `(optional)`, hint, placeholder, initial value and inline error; selects, checkboxes and radio buttons list
 *   their options, the chosen ones marked ● / [x] / (•).
 * - Anything the renderer does not know (a block or element type) is shown as `⚠unsupported …`, never dropped.
 *
 * Volatile values (what changes from one run to the next) are replaced so that a golden is byte-stable; see
 * `stabilize` below and the top of test/kit/screens.ts.
 */
import { asText } from '../../sandbox/src/as-text.js';
import { emojify } from '../../sandbox/src/mrkdwn-html.js';
import { APP_NAME, APP_USER_ID, CHANNELS, PEOPLE, USER_GROUPS } from '../../sandbox/src/people.js';
import { TEST_USER_ID } from './slack-ids.js';

type Json = Record<string, any>;

/** Who and what the names in a screen resolve to (Slack's users, channels and user groups). */
export interface ScreenDirectory {
  users: Readonly<Record<string, { name: string; tz: string }>>;
  channels: Readonly<Record<string, string>>;
  /** User group id → handle (shown as @handle). */
  groups: Readonly<Record<string, string>>;
}

/**
 * The test workspace: the sandbox's people (sandbox/src/people.ts, each in a time zone of their own), its
 * channels and user groups, and the app's bot user. Tests that use other ids add them (`withNames`).
 */
export const WORKSPACE_DIRECTORY: ScreenDirectory = {
  users: {
    ...Object.fromEntries(PEOPLE.map((p) => [p.id, { name: p.name, tz: p.tz }])),
    [APP_USER_ID]: { name: APP_NAME, tz: 'UTC' },
  },
  channels: Object.fromEntries(CHANNELS.map((c) => [c.id, c.name])),
  groups: Object.fromEntries(USER_GROUPS.map((g) => [g.id, g.handle])),
};

/** A directory with more names: users (id → name, or name and time zone), channels and groups. */
export function withNames(
  more: {
    users?: Record<string, string | { name: string; tz: string }>;
    channels?: Record<string, string>;
    groups?: Record<string, string>;
  },
  base: ScreenDirectory = WORKSPACE_DIRECTORY,
): ScreenDirectory {
  const users = Object.fromEntries(
    Object.entries(more.users ?? {}).map(([id, u]) => [id, typeof u === 'string' ? { name: u, tz: 'UTC' } : u]),
  );
  return {
    users: { ...base.users, ...users },
    channels: { ...base.channels, ...more.channels },
    groups: { ...base.groups, ...more.groups },
  };
}

export interface ScreenOptions {
  /** Whose screen it is: dates are shown in their time zone. The tests' user (Alice, Europe/Paris) by default. */
  viewer?: string;
  directory?: ScreenDirectory;
  /** The clock "today", "tomorrow" and {ago} are relative to, and volatile dates are measured from. */
  now?: Date;
  /**
   * Replace volatile values with stable ones (true by default): see `stabilize`. Off, the text is exactly
   * what the person would see at `now`.
   */
  stable?: boolean;
}

/** What a modal shows now: its view, and the inline errors Slack shows under its inputs (by block id). */
export function modalText(view: Json, options: ScreenOptions & { errors?: Record<string, string> } = {}): string {
  const r = new Renderer(options);
  const lines = [`Modal: ${r.plain(view.title)}`, RULE];
  lines.push(...r.blocks(view.blocks, options.errors ?? {}));
  lines.push(RULE);
  const close = view.close ? r.plain(view.close) : 'Cancel';
  lines.push(view.submit ? `[ ${close} ]  [ ${r.plain(view.submit)} ](submit)` : `[ ${close} ]`);
  return r.finish(lines);
}

/** App Home's Home tab as its person sees it. */
export function homeText(view: Json, options: ScreenOptions = {}): string {
  const r = new Renderer(options);
  return r.finish(['App Home', RULE, ...r.blocks(view.blocks, {})]);
}

/**
 * A message (chat.postMessage / chat.update params, a response_url body): its blocks, or its text when it
 * has none (the text of a message with blocks is only the notification's fallback). `where` heads it, e.g.
 * "#deletion-approvals" or "DM"; a thread reply says so.
 */
export function messageText(message: Json, options: ScreenOptions & { where?: string } = {}): string {
  const r = new Renderer(options);
  const heading = [
    `Message${options.where ? ` in ${options.where}` : ''}`,
    message.thread_ts ? '(a reply in a thread)' : '',
    message.response_type === 'in_channel' ? '(visible to everyone in the conversation)' : '',
    message.replace_original === true ? '(replaces the message it answers)' : '',
  ]
    .filter(Boolean)
    .join(' ');
  return r.finish([heading, RULE, ...r.messageBody(message)]);
}

/** A message only its person sees (chat.postEphemeral, or a response_url post that is not in_channel). */
export function ephemeralText(message: Json, options: ScreenOptions = {}): string {
  const r = new Renderer(options);
  const replaces = message.replace_original === true ? ' (replaces the message it answers)' : '';
  return r.finish([`Only visible to you${replaces}`, RULE, ...r.messageBody(message)]);
}

/** The dialog Slack shows before a button with `confirm` acts: its title, text and two buttons. */
export function confirmText(confirm: Json, options: ScreenOptions = {}): string {
  const r = new Renderer(options);
  const buttons = `[ ${confirm.deny ? r.plain(confirm.deny) : 'Cancel'} ]  [ ${confirm.confirm ? r.plain(confirm.confirm) : 'Yes'} ]${confirm.style ? `(${confirm.style})` : ''}`;
  return r.finish([`Dialog: ${r.plain(confirm.title)}`, RULE, r.text(confirm.text), RULE, buttons]);
}

/** One mrkdwn text as Slack shows it. */
export function mrkdwnText(text: string, options: ScreenOptions = {}): string {
  const r = new Renderer(options);
  return r.finish([r.mrkdwn(text)]).replace(/\n$/, '');
}

const RULE = '━'.repeat(48);
const DIVIDER = '─'.repeat(32);

/**
 * The moment volatile dates are shown relative to: a date within a year of the render's `now` is shown as
 * if it had been made at SCREEN_NOW (its distance from now kept, rounded to 5 minutes), in the viewer's time
 * zone. "Expires tomorrow at 10:30 AM" stays that, whenever the test runs.
 */
export const SCREEN_NOW = new Date('2030-01-15T09:30:00Z');
// A year: every now-based time the app shows (expiry, reminders, "created at") is days away, while a fixed date
// in its copy (an example such as 2030-01-31T09:00:00Z) is years away and must stay as written.
const VOLATILE_WINDOW_MS = 366 * 86_400_000;
const ROUNDING_MS = 5 * 60_000;

/**
 * Makes `text` byte-stable: numbered placeholders for generated ids (the same id gets the same number within
 * one screen), and dates near now moved to SCREEN_NOW. What is replaced:
 * - UUIDs → `‹uuid 1›`; the Mint mock's `lnk_…`/`cus_…` ids → `lnk_‹1›`; deletion requests' `DR-…` → `DR-‹1›`;
 * - loopback ports (`http://127.0.0.1:‹port›`), Slack message timestamps and permalinks' `p…` (‹ts›);
 * - ISO 8601 times and "YYYY-MM-DD HH:MM UTC" texts within a year of now → the same shape at SCREEN_NOW.
 * `<!date^…>` dates are moved by the renderer itself (it formats them).
 */
export function stabilize(text: string, now: Date = new Date()): string {
  const numbered = new Map<string, Map<string, number>>();
  const number = (kind: string, value: string) => {
    const seen = numbered.get(kind) ?? new Map<string, number>();
    numbered.set(kind, seen);
    if (!seen.has(value)) seen.set(value, seen.size + 1);
    return seen.get(value) ?? 0;
  };
  return text
    .replace(
      /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi,
      (id) => `‹uuid ${number('uuid', id)}›`,
    )
    .replace(/\b(lnk|cus)_([0-9a-f]{8})\b/g, (_, kind: string, id: string) => `${kind}_‹${number(kind, id)}›`)
    .replace(/\bDR-([A-Z0-9]{6})\b/g, (_, id: string) => `DR-‹${number('DR', id)}›`)
    .replace(/\b(127\.0\.0\.1|localhost):\d{2,5}\b/g, '$1:‹port›')
    .replace(/\b(\d{10})\.\d{6}\b/g, (ts, seconds: string) => (nearNow(Number(seconds) * 1000, now) ? '‹ts›' : ts))
    .replace(/\/p(\d{10})\d{6}\b/g, (whole, seconds: string) =>
      nearNow(Number(seconds) * 1000, now) ? '/p‹ts›' : whole,
    )
    .replace(/\b(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?)Z/g, (whole, iso: string) => {
      const moved = movedNearNow(Date.parse(`${iso}Z`), now);
      if (moved === undefined) return whole;
      return `${moved.toISOString().slice(0, iso.length)}Z`;
    })
    .replace(/\b(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}) UTC\b/g, (whole, day: string, time: string) => {
      const moved = movedNearNow(Date.parse(`${day}T${time}:00Z`), now);
      return moved === undefined ? whole : `${moved.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
    });
}

function nearNow(ms: number, now: Date): boolean {
  return Number.isFinite(ms) && Math.abs(ms - now.getTime()) < VOLATILE_WINDOW_MS;
}

/** A time near now moved to SCREEN_NOW (its distance from now kept, rounded); undefined when not near now. */
function movedNearNow(ms: number, now: Date): Date | undefined {
  if (!nearNow(ms, now)) return undefined;
  return new Date(SCREEN_NOW.getTime() + Math.round((ms - now.getTime()) / ROUNDING_MS) * ROUNDING_MS);
}

class Renderer {
  private readonly directory: ScreenDirectory;
  private readonly tz: string;
  private readonly now: Date;
  private readonly stable: boolean;

  constructor(options: ScreenOptions) {
    this.directory = options.directory ?? WORKSPACE_DIRECTORY;
    const viewer = options.viewer ?? TEST_USER_ID;
    const person = this.directory.users[viewer];
    if (!person) throw new Error(`the viewer ${viewer} is not in the directory: add them (withNames) with a tz`);
    this.tz = person.tz;
    this.stable = options.stable ?? true;
    this.now = options.now ?? new Date();
  }

  /** The screen's lines as one text ending in a newline, with volatile values replaced when stable. */
  finish(lines: string[]): string {
    const text = `${lines.join('\n').replace(/[ \t]+$/gm, '')}\n`;
    return this.stable ? stabilize(text, this.now) : text;
  }

  messageBody(message: Json): string[] {
    if (Array.isArray(message.blocks) && message.blocks.length > 0) return this.blocks(message.blocks, {});
    if (typeof message.text === 'string') return [this.mrkdwn(message.text)];
    return ['⚠empty message (no blocks, no text)'];
  }

  blocks(blocks: unknown, errors: Record<string, string>): string[] {
    if (!Array.isArray(blocks)) return [];
    const out: string[] = [];
    for (const block of blocks as Json[]) {
      out.push(...this.block(block, errors));
      out.push('');
    }
    while (out.at(-1) === '') out.pop();
    const stray = Object.keys(errors).filter((id) => !blocks.some((b: Json) => b.block_id === id));
    for (const id of stray) out.push(`⚠error for a block the view does not have (${id}): ${errors[id]}`);
    return out;
  }

  private block(block: Json, errors: Record<string, string>): string[] {
    switch (block.type) {
      case 'header':
        return [`# ${this.plain(block.text)}`];
      case 'divider':
        return [DIVIDER];
      case 'section':
        return this.section(block);
      case 'context':
        return [`› ${(block.elements as Json[]).map((e) => this.contextElement(e)).join('  ·  ')}`];
      case 'actions':
        return this.actions(block.elements as Json[]);
      case 'input':
        return this.input(block, errors[block.block_id as string]);
      case 'image':
        return [`[image: ${block.alt_text}${block.title ? ` · ${this.plain(block.title)}` : ''}]`];
      default:
        return [`⚠unsupported block: ${block.type}`];
    }
  }

  private section(block: Json): string[] {
    const lines: string[] = [];
    if (block.text) lines.push(this.text(block.text));
    // Slack lays fields out in two columns; here each is an item of its own, its lines kept together.
    for (const field of (block.fields ?? []) as Json[]) lines.push(...indent(this.text(field).split('\n'), '▪ '));
    if (block.accessory) lines.push(...indent(this.element(block.accessory), '  ⤷ '));
    return lines;
  }

  private actions(elements: Json[]): string[] {
    const rendered = elements.map((e) => this.element(e));
    // Buttons sit on one line, as Slack lays them out; a select takes its lines.
    if (rendered.every((r) => r.length === 1)) return [rendered.map((r) => r[0]).join('  ')];
    return rendered.flat();
  }

  private contextElement(element: Json): string {
    if (element.type === 'image') return `[image: ${element.alt_text}]`;
    return this.text(element);
  }

  private input(block: Json, error: string | undefined): string[] {
    const label = `${this.plain(block.label)}${block.optional === true ? ' (optional)' : ''}`;
    const lines = [label, ...indent(this.element(block.element), '  ')];
    if (block.hint) lines.push(`  hint: ${this.plain(block.hint)}`);
    if (error !== undefined) lines.push(`  ⚠ ${error}`);
    return lines;
  }

  /** An interactive element: one line, or a first line and its options. */
  private element(element: Json): string[] {
    const placeholder = element.placeholder ? ` placeholder "${this.plain(element.placeholder)}"` : '';
    switch (element.type) {
      case 'button':
        return [this.button(element)];
      case 'plain_text_input': {
        const kind = element.multiline === true ? 'long text' : 'text';
        return [`[${kind}${this.initial(element.initial_value)}]${placeholder}`];
      }
      case 'number_input':
      case 'url_text_input':
      case 'email_text_input': {
        const kind = (element.type as string).replace(/_(text_)?input$/, '');
        return [`[${kind}${this.initial(element.initial_value)}]${placeholder}`];
      }
      case 'static_select':
      case 'multi_static_select':
      case 'external_select':
      case 'multi_external_select':
        return this.select(element, placeholder);
      case 'users_select':
        return [`[user ▾${element.initial_user ? ` ${this.user(element.initial_user)}` : ''}]${placeholder}`];
      case 'multi_users_select': {
        const users = ((element.initial_users ?? []) as string[]).map((u) => this.user(u)).join(', ');
        return [`[users ▾${users ? ` ${users}` : ''}]${placeholder}`];
      }
      case 'conversations_select':
      case 'channels_select': {
        const initial = element.initial_conversation ?? element.initial_channel;
        const current = element.default_to_current_conversation === true ? ' (defaults to this conversation)' : '';
        return [`[conversation ▾${initial ? ` ${this.channel(initial)}` : ''}]${placeholder}${current}`];
      }
      case 'checkboxes':
      case 'radio_buttons':
        return this.choices(element);
      case 'datepicker':
        return [`[date ▾${element.initial_date ? ` ${element.initial_date}` : ''}]${placeholder}`];
      case 'timepicker':
        return [`[time ▾${element.initial_time ? ` ${element.initial_time}` : ''}]${placeholder}`];
      case 'datetimepicker': {
        const initial =
          element.initial_date_time === undefined
            ? ''
            : ` ${this.formatDate(Number(element.initial_date_time), '{date_short} at {time}')}`;
        return [`[date and time ▾${initial}]`];
      }
      case 'file_input': {
        const types = element.filetypes ? ` ${(element.filetypes as string[]).join('/')}` : '';
        return [`[upload a file${types}${element.max_files ? `, at most ${element.max_files}` : ''}]`];
      }
      case 'image':
        // A section's image accessory: Slack shows the picture beside the text; here its alt text.
        return [`[image: ${element.alt_text}]`];
      case 'overflow':
        return ['[ ⋯ ]', ...(element.options as Json[]).map((o) => `    · ${this.plain(o.text)}`)];
      default:
        return [`⚠unsupported element: ${element.type}`];
    }
  }

  private initial(value: unknown): string {
    return value === undefined || value === '' ? '' : `: "${asText(value)}"`;
  }

  private button(button: Json): string {
    const style = button.style ? `(${button.style})` : '';
    const url = button.url ? ` → ${button.url}` : '';
    const confirm = button.confirm ? ` (asks first: "${this.plain(button.confirm.title)}")` : '';
    return `[ ${this.plain(button.text)} ]${style}${url}${confirm}`;
  }

  private select(element: Json, placeholder: string): string[] {
    const multi = (element.type as string).startsWith('multi_');
    const chosen = (multi ? (element.initial_options ?? []) : [element.initial_option].filter(Boolean)) as Json[];
    const chosenValues = new Set(chosen.map((o) => o.value as string));
    const shown = chosen.map((o) => this.plain(o.text)).join(', ');
    const kind = (element.type as string).includes('external') ? 'search' : 'select';
    const first = `[${kind} ▾${shown ? ` ${shown}` : ''}]${placeholder}`;
    const groups = (element.option_groups ?? [{ options: element.options ?? [] }]) as Json[];
    const lines = [first];
    for (const group of groups) {
      if (group.label) lines.push(`    ${this.plain(group.label)}:`);
      for (const option of (group.options ?? []) as Json[])
        lines.push(`    ${chosenValues.has(option.value as string) ? '●' : '○'} ${this.plain(option.text)}`);
    }
    return lines;
  }

  private choices(element: Json): string[] {
    const radio = element.type === 'radio_buttons';
    const chosen = (radio ? [element.initial_option].filter(Boolean) : (element.initial_options ?? [])) as Json[];
    const chosenValues = new Set(chosen.map((o) => o.value as string));
    const lines: string[] = [];
    for (const option of (element.options ?? []) as Json[]) {
      const on = chosenValues.has(option.value as string);
      const mark = radio ? (on ? '(•)' : '( )') : on ? '[x]' : '[ ]';
      lines.push(`${mark} ${this.text(option.text)}`);
      if (option.description) lines.push(`    ${this.text(option.description)}`);
    }
    return lines;
  }

  /** A text object: plain_text as written (emoji shortcodes shown as emoji when `emoji` is on), or mrkdwn. */
  text(object: Json | undefined): string {
    if (!object) return '';
    if (object.type === 'mrkdwn') return this.mrkdwn(String(object.text));
    return this.plain(object);
  }

  plain(object: Json | string | undefined): string {
    if (object === undefined) return '';
    if (typeof object === 'string') return object;
    if (object.type === 'mrkdwn') return `⚠mrkdwn where Slack wants plain_text: ${String(object.text)}`;
    const text = String(object.text ?? '');
    return object.emoji === false ? text : emojify(text);
  }

  mrkdwn(text: string): string {
    const held: string[] = [];
    const hold = (rendered: string) => `\uE000${held.push(rendered) - 1}\uE000`;
    let out = text.replace(/```([\s\S]*?)```/g, (_, code: string) =>
      hold(`\n\`\`\`\n${decodeEntities(code.replace(/^\n/, '').replace(/\n$/, ''))}\n\`\`\`\n`),
    );
    out = out.replace(/<([^<>\n]+)>/g, (_, inner: string) => hold(this.controlSequence(inner)));
    out = out.replace(/`([^`\n]+)`/g, (_, code: string) => hold(`\`\`${decodeEntities(code)}\`\``));
    out = decodeEntities(out);
    out = emphasis(out, '\\*', '**');
    out = emphasis(out, '_', '__');
    out = emphasis(out, '~', '~~');
    out = emojify(out);
    out = out.replace(/^>\s?/gm, '▌ ');
    out = out.replace(/\uE000(\d+)\uE000/g, (_, i: string) => held[Number(i)] ?? '');
    // A code block stands on lines of its own: no blank line is added around it where the text had one.
    return out.replace(/\n?\n(```\n[\s\S]*?\n```)\n\n?/g, '\n$1\n').replace(/^\n|\n$/g, '');
  }

  private controlSequence(inner: string): string {
    const [target = '', ...rest] = inner.split('|');
    const label = rest.length > 0 ? decodeEntities(rest.join('|')) : undefined;
    if (target.startsWith('@')) return this.user(target.slice(1));
    if (target.startsWith('#')) return this.channel(target.slice(1));
    if (target.startsWith('!subteam^')) {
      const id = target.slice('!subteam^'.length);
      const handle = this.directory.groups[id];
      return handle ? `@${handle}` : `@⚠unknown-group:${id}`;
    }
    if (target.startsWith('!date^')) {
      const [, seconds = '', format = '', link] = target.split('^');
      const shown = this.formatDate(Number(seconds), format, label);
      return link ? `${shown} (${decodeEntities(link)})` : shown;
    }
    if (target === '!here' || target === '!channel' || target === '!everyone') return `@${target.slice(1)}`;
    const url = decodeEntities(target);
    if (!/^(https?:|mailto:)/i.test(url)) return `<${decodeEntities(inner)}>`; // not a sequence Slack knows
    return label === undefined || label === url ? url : `${label} (${url})`;
  }

  private user(id: string): string {
    const user = this.directory.users[id];
    return user ? `@${user.name}` : `@⚠unknown-user:${id}`;
  }

  private channel(id: string): string {
    const name = this.directory.channels[id];
    return name ? `#${name}` : `#⚠unknown-channel:${id}`;
  }

  /** A `<!date^seconds^format>` as the viewer sees it (the fallback when the timestamp is not a number). */
  formatDate(seconds: number, format: string, fallback = ''): string {
    if (!Number.isFinite(seconds)) return fallback || '⚠bad date';
    let when = new Date(seconds * 1000);
    let now = this.now;
    if (this.stable) {
      const moved = movedNearNow(when.getTime(), this.now);
      if (moved) {
        when = moved;
        now = SCREEN_NOW;
      }
    }
    const at = dateParts(when, this.tz);
    const today = dateParts(now, this.tz);
    const dayOffset = Math.round(
      (Date.UTC(at.year, at.month - 1, at.day) - Date.UTC(today.year, today.month - 1, today.day)) / 86_400_000,
    );
    const relativeDay =
      dayOffset === 0 ? 'today' : dayOffset === 1 ? 'tomorrow' : dayOffset === -1 ? 'yesterday' : undefined;
    const month = MONTHS[at.month - 1] ?? '?';
    const hour12 = at.hour % 12 === 0 ? 12 : at.hour % 12;
    const ampm = at.hour < 12 ? 'AM' : 'PM';
    const tokens: Record<string, () => string> = {
      date_num: () => `${at.year}-${pad(at.month)}-${pad(at.day)}`,
      date_slash: () => `${pad(at.day)}/${pad(at.month)}/${at.year}`,
      date: () => `${month} ${ordinal(at.day)}, ${at.year}`,
      date_short: () => `${month.slice(0, 3)} ${at.day}, ${at.year}`,
      date_long: () => `${at.weekday}, ${month} ${ordinal(at.day)}, ${at.year}`,
      date_long_full: () => `${month} ${at.day}, ${at.year}`,
      date_pretty: () => relativeDay ?? tokens.date?.() ?? '',
      date_short_pretty: () => relativeDay ?? tokens.date_short?.() ?? '',
      date_long_pretty: () => relativeDay ?? tokens.date_long?.() ?? '',
      day_divider_pretty: () => relativeDay ?? tokens.date_long?.() ?? '',
      time: () => `${hour12}:${pad(at.minute)} ${ampm}`,
      time_secs: () => `${hour12}:${pad(at.minute)}:${pad(at.second)} ${ampm}`,
      ago: () => ago(when.getTime() - now.getTime()),
    };
    return format.replace(/\{([a-z_]+)\}/g, (whole, token: string, offset: number) => {
      const value = tokens[token]?.();
      if (value === undefined) return whole; // a token Slack does not know: shown as written
      // Slack capitalises a relative day that starts the text ("Tomorrow at 9:00 AM").
      return offset === 0 && relativeDay && value === relativeDay ? value[0]?.toUpperCase() + value.slice(1) : value;
    });
  }
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

function ordinal(day: number): string {
  const suffix =
    day % 10 === 1 && day !== 11
      ? 'st'
      : day % 10 === 2 && day !== 12
        ? 'nd'
        : day % 10 === 3 && day !== 13
          ? 'rd'
          : 'th';
  return `${day}${suffix}`;
}

function ago(deltaMs: number): string {
  const seconds = Math.round(Math.abs(deltaMs) / 1000);
  const units: Array<[string, number]> = [
    ['year', 365 * 86_400],
    ['month', 30 * 86_400],
    ['day', 86_400],
    ['hour', 3_600],
    ['minute', 60],
  ];
  const [unit, size] = units.find(([, s]) => seconds >= s) ?? ['second', 1];
  const n = Math.floor(seconds / size);
  const amount = `${n} ${unit}${n === 1 ? '' : 's'}`;
  return deltaMs <= 0 ? `${amount} ago` : `in ${amount}`;
}

/** The calendar fields of a moment in a time zone (numbers only: no locale text, so ICU versions agree). */
function dateParts(date: Date, timeZone: string) {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
    hourCycle: 'h23',
  }).formatToParts(date);
  const field = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? NaN);
  const year = field('year');
  const month = field('month');
  const day = field('day');
  const weekday = WEEKDAYS[new Date(Date.UTC(year, month - 1, day)).getUTCDay()] ?? '?';
  return { year, month, day, hour: field('hour'), minute: field('minute'), second: field('second'), weekday };
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** Slack's three entities back to the characters they stand for. */
function decodeEntities(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** Slack's emphasis (markers touching the text, at a word's edge), shown with doubled markers. */
function emphasis(text: string, marker: string, shown: string): string {
  const pattern = new RegExp(
    `(^|[\\s(\\[{'"“‘.,;:!?\\-/]|\\uE000)${marker}(?=\\S)([^\\n]*?\\S)${marker}(?=$|[\\s)\\]}'"”’.,;:!?\\-/]|\\uE000)`,
    'gm',
  );
  return text.replace(pattern, (_, before: string, inner: string) => `${before}${shown}${inner}${shown}`);
}

/** Lines under a prefix (a text with line breaks, such as a long text input's value, stays inside it). */
function indent(lines: string[], first: string): string[] {
  const rest = ' '.repeat(first.length);
  return lines.flatMap((line) => line.split('\n')).map((line, i) => (i === 0 ? first + line : rest + line));
}
