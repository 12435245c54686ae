import type { WebClient } from '@slack/web-api';
import type { WorkBudget } from '../../platform/slack/admission/work-budget.js';
import type { CapabilityStore, HomeEntry, HomeTab } from '../../deps.js';
import type { Logger } from '../../platform/ops/telemetry/create-logger.js';
import type { MintServiceStatus } from '../../platform/mint/mint-api-client.js';
import { approvedRequestStates } from './request-states.js';
import { ACTIVITY_SHOWN, appStatusLines, type HomeContent, homeView } from './home-view.js';
import { stringFieldOf } from '../../platform/unknown-fields.js';

export interface HomeSources {
  store: CapabilityStore;
  /** The bot's client in a workspace (its own token in distribution mode). */
  slack: (teamId: string | undefined) => Promise<WebClient>;
  work: WorkBudget;
  logger: Logger;
  /** How the workspace's Mint account last answered. */
  mint: (teamId: string | undefined) => Promise<MintServiceStatus | undefined>;
}

/**
 * App Home: each capability adds its entry; the tab is built from all of them and published (views.publish,
 * Tier 4). Each publish is built from the database at that moment and passes the hash of the version the
 * user last got: if another update (another replica) came in between, Slack answers hash_conflict and the
 * view is built again from fresh data, so an update built from older data never replaces a newer one.
 */
export class HomePublisher implements HomeTab {
  private readonly entries: HomeEntry[] = [];
  /** Per user: the publish under way, and whether another must follow it (both emptied when it ends). */
  private readonly running = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();

  constructor(private readonly sources: HomeSources) {}

  add(entry: HomeEntry): void {
    this.entries.push(entry);
    this.entries.sort((a, b) => a.order - b.order);
  }

  /** What one user's Home in their workspace shows, read fresh. */
  async content(userId: string, teamId: string | undefined): Promise<HomeContent> {
    const [flows, sections, activity, mint] = await Promise.all([
      this.flowsFor(userId, teamId),
      Promise.all(
        this.entries.map(async (e) => (e.blocks ? { top: e.top, blocks: await e.blocks(userId, teamId) } : undefined)),
      ),
      this.sources.store.audit.list({ actorId: userId, teamId, limit: ACTIVITY_SHOWN }),
      this.sources.mint(teamId),
    ]);
    return {
      flows,
      requestStates: await approvedRequestStates(this.sources.store, activity),
      top: sections.flatMap((s) => (s?.top ? s.blocks : [])),
      sections: sections.flatMap((s) => (s && !s.top ? s.blocks : [])),
      activity,
      status: [...appStatusLines(mint), ...this.entries.flatMap((e) => (e.status ? [e.status(teamId)] : []))],
    };
  }

  /** The flows of the entries this user may use, in the entries' order. */
  private async flowsFor(userId: string, teamId: string | undefined): Promise<Array<NonNullable<HomeEntry['flow']>>> {
    const flows = this.entries.flatMap((e) => (e.flow ? [e.flow] : []));
    const shown = await Promise.all(flows.map((flow) => flow.shownTo?.(userId, teamId) ?? Promise.resolve(true)));
    return flows.filter((_, i) => shown[i]);
  }

  /**
   * Publishes a user's Home in a workspace. Publishes for one Home run one after the other (two at once would
   * build on the same version and one would conflict); changes that come meanwhile cause one more publish, not
   * one each. An Enterprise Grid user has a Home in each workspace: each is its own. `hash`: the version on
   * screen, when known (app_home_opened carries it).
   */
  publish(userId: string, teamId?: string, hash?: string): Promise<void> {
    const home = `${teamId ?? ''} ${userId}`;
    const current = this.running.get(home);
    if (current) {
      this.again.add(home);
      return current;
    }
    const run = (async () => {
      let first = true;
      do {
        this.again.delete(home);
        await this.publishOnce(userId, teamId, first ? hash : undefined);
        first = false;
      } while (this.again.has(home));
    })().finally(() => this.running.delete(home));
    this.running.set(home, run);
    return run;
  }

  refreshIn(teamId: string | undefined, userIds: Iterable<string>): void {
    const asked = [...new Set(userIds)];
    if (asked.length === 0) return;
    this.inBackground(async () => {
      for (const { userId } of await this.sources.store.homeTabs.amongIn(teamId, asked))
        await this.republish(userId, teamId);
    });
  }

  refreshWorkspace(teamId: string, who?: (userId: string) => Promise<boolean>): void {
    this.inBackground(async () => {
      let after = '';
      for (;;) {
        const page = await this.sources.store.homeTabs.inWorkspace(teamId, after);
        for (const { userId } of page) if (!who || (await who(userId))) await this.republish(userId, teamId);
        const last = page.at(-1);
        if (!last) return;
        after = last.userId;
      }
    });
  }

  private inBackground(refresh: () => Promise<void>): void {
    void this.sources.work
      .track(refresh())
      .catch((error: unknown) => this.sources.logger.warn({ err: error }, 'could not refresh Home tabs'));
  }

  /** A refresh goes on with the other Homes when one cannot be published. */
  private republish(userId: string, teamId: string | undefined): Promise<void> {
    return this.publish(userId, teamId).catch((error: unknown) =>
      this.sources.logger.warn({ err: error, user: userId }, 'could not refresh a Home tab'),
    );
  }

  private async publishOnce(userId: string, teamId: string | undefined, hash: string | undefined): Promise<void> {
    const tabs = this.sources.store.homeTabs;
    const team = teamId;
    const stored = await tabs.get(userId, team);
    const client = await this.sources.slack(team);
    let base = hash ?? stored?.hash;
    for (let attempt = 1; ; attempt += 1) {
      const view = homeView(await this.content(userId, team));
      try {
        const answer = await client.views.publish({
          user_id: userId,
          view,
          ...(base ? { hash: base } : {}),
        });
        await tabs.save({ userId, teamId: team, hash: answer.view?.hash }, new Date());
        return;
      } catch (error) {
        const code = stringFieldOf(error, 'data', 'error');
        if (code !== 'hash_conflict' || attempt >= 3) throw error;
        // Someone published meanwhile: build again on top of their version. If the stored hash did not
        // change, it is not theirs (their save was lost or came late): nobody will correct it, so the next
        // attempt goes without a hash; it is built from the database as it is now, never from older data.
        const latest = (await tabs.get(userId, team))?.hash;
        base = latest === base ? undefined : latest;
      }
    }
  }
}
