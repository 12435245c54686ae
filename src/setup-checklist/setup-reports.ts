import type { SetupItem } from '../setup-checks/setup-items.js';

/** A report is checked again in the background when it is older than this (Slack and the database asked again). */
export const REPORT_TTL_MS = 5 * 60_000;

export interface SetupReport {
  items: SetupItem[];
  at: number;
  /** What it was checked against (the settings in force): another value makes it stale at once. */
  basis: string;
}

export interface SetupReportsOptions {
  ttlMs?: number;
  now?: () => number;
}

/**
 * The last setup report of each workspace, for App Home. A Home publish never waits for Slack: it shows the
 * report at hand (none before the first check), and a missing, old or outdated one is checked again in the
 * background, once at a time per workspace; `changed` is told when what the checklist shows changes.
 */
export class SetupReports {
  private readonly reports = new Map<string, SetupReport>();
  private readonly running = new Map<string, Promise<SetupReport>>();
  /** `team key` of the items being replaced: a burst of calls (a bulk job) is one replacement at a time. */
  private readonly replacing = new Set<string>();
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(
    private readonly check: (teamId: string | undefined) => Promise<SetupItem[]>,
    private readonly changed: (teamId: string | undefined) => void,
    /** Starts background work the app waits for when it stops (and that its failures are logged by). */
    private readonly background: (work: Promise<unknown>) => void,
    options: SetupReportsOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? REPORT_TTL_MS;
    this.now = options.now ?? Date.now;
  }

  /** The report at hand for a workspace (undefined: not checked yet); starts a check when it is due. */
  peek(teamId: string | undefined, basis: string): SetupReport | undefined {
    const report = this.reports.get(teamId ?? '');
    if (!report || report.basis !== basis || this.now() - report.at >= this.ttlMs)
      this.background(this.recheck(teamId, basis));
    return report;
  }

  /**
   * Checks the workspace (one check at a time per workspace). A background look shares the check under way;
   * `fresh` (a person asked) waits for it and checks again, since it may have asked Slack before the fix.
   */
  recheck(teamId: string | undefined, basis: string, options: { fresh?: boolean } = {}): Promise<SetupReport> {
    const key = teamId ?? '';
    const under = this.running.get(key);
    if (under && !options.fresh) return under;
    const run = (under ? under.catch(() => undefined) : Promise.resolve())
      .then(() => this.check(teamId))
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
