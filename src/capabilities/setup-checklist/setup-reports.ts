import { LRUCache } from 'lru-cache';
import type { SetupItem } from '../../tenancy/setup-checks/setup-items.js';

/** A report is checked again in the background when it is older than this (Slack and the database asked again). */
export const REPORT_TTL_MS = 5 * 60_000;

/**
 * A person's "Check again" starts a fresh check at most this often per workspace. A full check asks Slack about
 * a dozen times (users.info, Tier 4; conversations.info, Tier 3; usergroups.users.list, Tier 2: 20 a minute):
 * once per 30 s keeps the slowest tier at 2 a minute however many admins press, and is still soon enough for
 * someone who just fixed something in Slack.
 */
export const RECHECK_COOLDOWN_MS = 30_000;

/** What a press of "Check again" did. */
export type RecheckPress =
  | { kind: 'started' | 'joined'; done: Promise<SetupReport> }
  | { kind: 'too-soon'; checkedAt: number; againInMs: number };

export interface SetupReport {
  items: SetupItem[];
  at: number;
  /** A person asked for it (Check again): once every item passes, Home says so for a while. */
  asked?: boolean;
  /** What it was checked against (the settings in force): another value makes it stale at once. */
  basis: string;
}

export interface SetupReportsOptions {
  ttlMs?: number;
  cooldownMs?: number;
  now?: () => number;
}

/**
 * The last setup report of each workspace, for App Home. A Home publish never waits for Slack: it shows the
 * report at hand (none before the first check), and a missing, old or outdated one is checked again in the
 * background, once at a time per workspace; `changed` is told when what the checklist shows changes.
 */
export class SetupReports {
  /** Bounded: a workspace whose report was let go gets a fresh check on its next Home, as a new one does. */
  private readonly reports = new LRUCache<string, SetupReport>({ max: 10_000 });
  /** Checks under way (each ends with its calls' deadlines). */
  private readonly running = new Map<string, Promise<SetupReport>>();
  /** `team key` of the items being replaced (under way only): a burst of calls (a bulk job) is one replacement at a time. */
  private readonly replacing = new Set<string>();
  /** When someone last started a fresh check by pressing: the cooldown runs from there, never from a check Home
   * started in the background (a person who just fixed something gets a fresh check on their first press). */
  private readonly pressedAt = new LRUCache<string, number>({ max: 10_000 });
  private readonly ttlMs: number;
  private readonly cooldownMs: number;
  private readonly now: () => number;

  constructor(
    private readonly check: (teamId: string | undefined) => Promise<SetupItem[]>,
    private readonly changed: (teamId: string | undefined) => void,
    /** Starts background work the app waits for when it stops (and that its failures are logged by). */
    private readonly background: (work: Promise<unknown>) => void,
    options: SetupReportsOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? REPORT_TTL_MS;
    this.cooldownMs = options.cooldownMs ?? RECHECK_COOLDOWN_MS;
    this.now = options.now ?? (() => Date.now());
  }

  /** The report at hand for a workspace (undefined: not checked yet); starts a check when it is due. */
  peek(teamId: string | undefined, basis: string): SetupReport | undefined {
    const report = this.reports.get(teamId ?? '');
    if (!report || report.basis !== basis || this.now() - report.at >= this.ttlMs)
      this.background(this.recheck(teamId, basis));
    return report;
  }

  /** Whether a check of the workspace is under way (Home says "checking…"). */
  checking(teamId: string | undefined): boolean {
    return this.running.has(teamId ?? '');
  }

  /**
   * A person pressed "Check again": joins a check under way, refuses one sooner than the cooldown after the last
   * pressed one (unless the settings changed since), or starts one.
   */
  press(teamId: string | undefined, basis: string): RecheckPress {
    const key = teamId ?? '';
    const under = this.running.get(key);
    if (under) return { kind: 'joined', done: under.then((report) => this.markAsked(key, report)) };
    const last = this.reports.get(key);
    const pressed = this.pressedAt.get(key);
    const since = pressed === undefined ? Infinity : this.now() - pressed;
    if (last && last.basis === basis && since < this.cooldownMs)
      return { kind: 'too-soon', checkedAt: last.at, againInMs: this.cooldownMs - since };
    this.pressedAt.set(key, this.now());
    return { kind: 'started', done: this.recheck(teamId, basis).then((report) => this.markAsked(key, report)) };
  }

  /** Checks the workspace, one check at a time per workspace: a look while one runs shares it. */
  recheck(teamId: string | undefined, basis: string): Promise<SetupReport> {
    const key = teamId ?? '';
    const under = this.running.get(key);
    if (under) return under;
    const run = this.check(teamId)
      .then((items) => {
        const before = this.reports.get(key);
        const report = { items, at: this.now(), basis };
        this.reports.set(key, report);
        if (shown(before?.items) !== shown(items)) this.changed(teamId);
        return report;
      })
      .finally(() => {
        if (this.running.get(key) === run) this.running.delete(key);
      });
    this.running.set(key, run);
    return run;
  }

  private markAsked(key: string, report: SetupReport): SetupReport {
    const asked = { ...report, asked: true };
    if (this.reports.get(key) === report) this.reports.set(key, asked);
    return asked;
  }

  /**
   * Replaces one item of each report at hand that `teams` selects (the Mint item after a call, say) with what
   * `item` computes, without asking Slack again; Homes are told when what the checklist shows changes.
   */
  replaceItem(
    teams: (teamId: string | undefined) => boolean,
    key: string,
    item: (teamId: string | undefined) => Promise<SetupItem>,
  ): void {
    for (const stored of this.reports.keys()) {
      const teamId = stored || undefined;
      const pending = `${stored} ${key}`;
      if (!teams(teamId) || this.replacing.has(pending)) continue;
      this.replacing.add(pending);
      this.background(
        item(teamId)
          .then((fresh) => {
            const current = this.reports.get(stored);
            if (!current) return;
            const items = current.items.map((old) => (old.key === key ? fresh : old));
            this.reports.set(stored, { ...current, items });
            if (shown(current.items) !== shown(items)) this.changed(teamId);
          })
          .finally(() => this.replacing.delete(pending)),
      );
    }
  }

  /** Forgets a workspace's report (its Mint account changed, say): the next look checks again. */
  forget(teamId: string | undefined): void {
    this.reports.delete(teamId ?? '');
  }
}

/** What the checklist shows of a report, as text: nothing while every item passes or only warns. */
export function shown(items: readonly SetupItem[] | undefined): string {
  if (!items?.some((item) => item.state === 'fail')) return '';
  return items.map((item) => `${item.state} ${item.summary} ${item.fix ?? ''}`).join('\n');
}
