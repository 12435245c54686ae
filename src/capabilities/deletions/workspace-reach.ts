import type { WebClient } from '@slack/web-api';
import { LRUCache } from 'lru-cache';
import type { Logger } from '../../platform/ops/telemetry/create-logger.js';
import { WorkspaceGone } from '../../tenancy/workspaces/workspaces.js';

/**
 * How background work (sweeper, reminders, step completion) reaches a workspace's Slack: with that
 * workspace's own client, or not at all when the workspace is gone (no installation any more). A gone
 * workspace is skipped, never an error that stops the loop over the others, and said in the log once, not at
 * every pass, until it can be reached again.
 */
export class WorkspaceReach {
  /**
   * Gone workspaces already logged (bounded: the oldest is let go, and logged again if still gone); made at the
   * first one gone, as an LRU allocates all its places at once.
   */
  private gone: LRUCache<string, true> | undefined;

  constructor(
    private readonly slackIn: (teamId: string) => Promise<WebClient>,
    private readonly logger: Logger,
  ) {}

  /** The workspace's client, or undefined when it is gone. */
  async slack(teamId: string): Promise<WebClient | undefined> {
    try {
      const client = await this.slackIn(teamId);
      this.gone?.delete(teamId);
      return client;
    } catch (error) {
      if (!(error instanceof WorkspaceGone)) throw error;
      const gone = (this.gone ??= new LRUCache({ max: 10_000 }));
      if (!gone.has(teamId)) {
        gone.set(teamId, true);
        this.logger.warn({ team: teamId, reason: error.message }, 'workspace gone: its deletion work is skipped');
      }
      return undefined;
    }
  }
}
