import type { WebClient } from '@slack/web-api';
import type { InFlight } from '../lifecycle/in-flight.js';
import type { Logger } from '../logging/create-logger.js';
import { preSerialized } from '../slack-api/pre-serialized.js';
import { loadHomeData, type HomeSources } from './home-data.js';
import { homeView } from './home-view.js';

/** Someone who can bring Home tabs up to date after a change (the capabilities only need this much). */
export interface HomeRefresher {
  /** Refreshes, in the background, these users' Homes and, with `approvers`, every approver's. */
  refresh(userIds: readonly string[], options?: { approvers?: boolean }): void;
}

/**
 * Publishes App Home tabs (views.publish, Tier 4). Each publish is built from the database at that moment
 * and passes the hash of the version the user last got: if another update (another replica) came in
 * between, Slack answers hash_conflict and the view is built again from fresh data, so an update built from
 * older data never replaces a newer one.
 */
export class HomePublisher implements HomeRefresher {
  /** Per user: the publish under way, and whether another must follow it (changes came meanwhile). */
  private readonly running = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();

  constructor(
    private readonly sources: HomeSources,
    private readonly client: WebClient,
    private readonly inFlight: InFlight,
    private readonly logger: Logger,
  ) {}

  /**
   * Publishes a user's Home. Publishes for one user run one after the other (two at once would build on the
   * same version and one would conflict); changes that come meanwhile cause one more publish, not one each.
   * `hash`: the version on screen, when known (app_home_opened carries it).
   */
  publish(userId: string, teamId?: string, hash?: string): Promise<void> {
    const current = this.running.get(userId);
    if (current) {
      this.again.add(userId);
      return current;
    }
    const run = (async () => {
      let first = true;
      do {
        this.again.delete(userId);
        await this.publishOnce(userId, teamId, first ? hash : undefined);
        first = false;
      } while (this.again.has(userId));
    })().finally(() => this.running.delete(userId));
    this.running.set(userId, run);
    return run;
  }

  private async publishOnce(userId: string, teamId: string | undefined, hash: string | undefined): Promise<void> {
    const tabs = this.sources.store.homeTabs;
    let base = hash ?? (await tabs.get(userId))?.hash;
    for (let attempt = 1; ; attempt += 1) {
      const view = homeView(await loadHomeData(this.sources, userId));
      try {
        const answer = await this.client.views.publish({ user_id: userId, view: preSerialized(view), ...(base ? { hash: base } : {}) });
        await tabs.save({ userId, teamId, hash: answer.view?.hash }, new Date());
        return;
      } catch (error) {
        const code = (error as { data?: { error?: string } }).data?.error;
        if (code !== 'hash_conflict' || attempt >= 3) throw error;
        // Someone published meanwhile: build again on top of their version. If the stored hash did not
        // change, it is not theirs (their save was lost or came late): nobody will correct it, so the next
        // attempt goes without a hash; it is built from the database as it is now, never from older data.
        const latest = (await tabs.get(userId))?.hash;
        base = latest === base ? undefined : latest;
      }
    }
  }

  refresh(userIds: readonly string[], options: { approvers?: boolean } = {}): void {
    void this.inFlight.track(this.refreshNow(userIds, options)).catch((error: unknown) => this.logger.warn({ err: error }, 'could not refresh Home tabs'));
  }

  private async refreshNow(userIds: readonly string[], options: { approvers?: boolean }): Promise<void> {
    const withHome = new Set(await this.sources.store.homeTabs.userIds());
    const users = new Set(userIds.filter((u) => withHome.has(u)));
    if (options.approvers) {
      for (const user of withHome) if ((await this.sources.approvers.check(user)).approver) users.add(user);
    }
    for (const user of users) {
      await this.publish(user).catch((error: unknown) => this.logger.warn({ err: error, user }, 'could not refresh a Home tab'));
    }
  }
}
