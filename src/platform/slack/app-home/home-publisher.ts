import type { HomeView, KnownBlock } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { WorkBudget } from '../admission/work-budget.js';
import type { ButtonDeclaration } from '../pipeline/declarations.js';
import type { Logger } from '../../ops/telemetry/create-logger.js';
import type { HomeTabs } from '../../store/home-tabs.js';
import { stringFieldOf } from '../../unknown-fields.js';

/** A capability's part of App Home. */
export interface HomeEntry {
  /** Where it stands on the tab, lowest first. */
  order: number;
  /** Its blocks go above everything else, right under the tab's title (the setup checklist): rare, and urgent. */
  top?: boolean;
  /** A button in the row of flows at the top; the capability listens to `actionId` itself. */
  flow?: ButtonDeclaration & {
    label: string;
    /** Whether this user may use the flow: a button that would only lead to a refusal is not shown. Everyone when absent. */
    shownTo?: (userId: string, teamId: string | undefined) => Promise<boolean>;
  };
  /** Its blocks on one user's Home in their workspace, read fresh each time (empty when it has nothing for them). */
  blocks?: (userId: string, teamId: string | undefined) => Promise<KnownBlock[]>;
  /** A line of the status footer in a workspace (mrkdwn). */
  status?: (teamId: string | undefined) => string;
}

/** App Home as the capabilities see it: they add their part and ask for refreshes after a change. */
export interface HomeTab {
  add(entry: HomeEntry): void;
  /**
   * Refreshes, in the background, the Homes these users have in workspace `teamId` (those who opened one):
   * only theirs are read and published, however many Homes the app has. (Undefined: a job or request kept
   * from before workspaces were recorded.)
   */
  refreshIn(teamId: string | undefined, userIds: Iterable<string>): void;
  /**
   * Refreshes, in the background, the Home of everyone with one in workspace `teamId` for whom `who` says yes
   * (everyone's when not given), say its admins after its settings changed: only that workspace's Homes are
   * read, a page at a time.
   */
  refreshWorkspace(teamId: string, who?: (userId: string) => Promise<boolean>): void;
}

/** One user's Home in a workspace built from the entries (in their order), read fresh at each publish. */
export type HomeScreen = (
  userId: string,
  teamId: string | undefined,
  entries: readonly HomeEntry[],
) => Promise<HomeView>;

export interface HomeSources {
  /** Who has a Home in which workspace, and the hash of the version each one sees. */
  homeTabs: Pick<HomeTabs, 'get' | 'save' | 'amongIn' | 'inWorkspace'>;
  /** The bot's client in a workspace (its own token in distribution mode). */
  slack: (teamId: string | undefined) => Promise<WebClient>;
  work: WorkBudget;
  logger: Logger;
}

/**
 * App Home: each capability adds its entry; the tab is built from all of them by the screen the home capability
 * gives (`show`, at its registration) and published (views.publish, Tier 4). Each publish is built from the
 * database at that moment and passes the hash of the version the user last got: if another update (another
 * replica) came in between, Slack answers hash_conflict and the view is built again from fresh data, so an update
 * built from older data never replaces a newer one.
 */
export class HomePublisher implements HomeTab {
  private readonly entries: HomeEntry[] = [];
  /** Per user: the publish under way, and whether another must follow it (both emptied when it ends). */
  private readonly running = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  private screen: HomeScreen | undefined;

  constructor(private readonly sources: HomeSources) {}

  add(entry: HomeEntry): void {
    this.entries.push(entry);
    this.entries.sort((a, b) => a.order - b.order);
  }

  /** How a Home is built: the home capability's screen, given before the app takes requests. */
  show(screen: HomeScreen): void {
    this.screen = screen;
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
      for (const { userId } of await this.sources.homeTabs.amongIn(teamId, asked)) await this.republish(userId, teamId);
    });
  }

  refreshWorkspace(teamId: string, who?: (userId: string) => Promise<boolean>): void {
    this.inBackground(async () => {
      let after = '';
      for (;;) {
        const page = await this.sources.homeTabs.inWorkspace(teamId, after);
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
    const { screen } = this;
    if (!screen) throw new Error('App Home has no screen: the home capability gives it when it registers');
    const tabs = this.sources.homeTabs;
    const team = teamId;
    const stored = await tabs.get(userId, team);
    const client = await this.sources.slack(team);
    let base = hash ?? stored?.hash;
    for (let attempt = 1; ; attempt += 1) {
      const view = await screen(userId, team, this.entries);
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
