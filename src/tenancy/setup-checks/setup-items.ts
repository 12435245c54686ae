import { slackDate } from '../../platform/blocks/slack-date.js';

/*
 * What the setup doctor reports: one item per thing it asked Slack or the database, each passing or not, and
 * when not, what to do in one line. Shared by `npm run doctor` (plain text) and App Home's Setup checklist.
 */

/** `fail`: something does not work (blocks); `warn`: could not be checked, or worth knowing (does not block). */
export type ItemState = 'pass' | 'fail' | 'warn';

export interface SetupItem {
  /** Stable, for tests and goldens: `bot-token`, `approval-channel`... */
  key: string;
  state: ItemState;
  /** What was found, one line. */
  summary: string;
  /** What to do, one line (set when the item does not pass). */
  fix?: string;
  /** Set when the check could not reach Slack at all: the checks after it that need Slack are not run. */
  slackUnreachable?: true;
}

export const pass = (key: string, summary: string): SetupItem => ({ key, state: 'pass', summary });
export const fail = (key: string, summary: string, fix: string): SetupItem => ({ key, state: 'fail', summary, fix });
export const warn = (key: string, summary: string, fix: string): SetupItem => ({ key, state: 'warn', summary, fix });

/** True when some item fails (a warning never blocks). */
export function blocks(items: readonly SetupItem[]): boolean {
  return items.some((item) => item.state === 'fail');
}

/**
 * How ids are shown: the terminal prints them as they are, Slack renders mentions (`<#C…>` as #name,
 * `<@U…>` as @Name, `<!subteam^S…>` as @handle).
 */
export interface Naming {
  channel(id: string): string;
  user(id: string): string;
  group(id: string): string;
  /** A moment: UTC on the terminal, the reader's time zone in Slack. */
  date(at: Date): string;
}

export const PLAIN_NAMING: Naming = {
  channel: (id) => id,
  user: (id) => id,
  group: (id) => `${id} (user group)`,
  date: (at) => `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
};

export const SLACK_NAMING: Naming = {
  channel: (id) => `<#${id}>`,
  user: (id) => `<@${id}>`,
  group: (id) => `<!subteam^${id}>`,
  date: slackDate,
};

/** `1 approver`, `2 approvers`. */
export function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** `a, b and c`. */
export function listed(parts: readonly string[]): string {
  if (parts.length <= 1) return parts.join('');
  return `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

/**
 * A URL as a report shows it: never its userinfo (`https://user:password@host` would print a credential).
 * Unchanged when it has none.
 */
export function shownUrl(url: string): string {
  const parsed = URL.parse(url);
  if (!parsed) return withoutUserinfo(url);
  if (!parsed.username && !parsed.password) return url;
  parsed.username = '';
  parsed.password = '';
  return parsed.href;
}

/** Text with the userinfo of every URL in it taken out (an error message can quote the URL it was given). */
export function withoutUserinfo(text: string): string {
  return text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s@]*@/gi, '$1');
}
