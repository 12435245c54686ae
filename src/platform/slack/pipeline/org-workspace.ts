import type { Context } from '@slack/bolt';
import { LRUCache } from 'lru-cache';
import type { Store } from '../../store/store.js';

/** What a person of a workspace the organisation's installation does not serve is told (every kind of request). */
export const NOT_SERVED_TEXT =
  ':no_entry: Mintlink is not installed for your workspace. The Mintlink you used here is installed by another organization for its own workspaces, so it cannot act for yours or use your workspace’s Mint account. To use Mintlink in your workspace, ask one of its admins to install it there. If your workspace was just added to this organization’s installation, try again in a little while.';

/**
 * How long a replica trusts that a workspace is of an organisation without being told otherwise: a leave, or
 * the organisation's installation removed, is told by the change feed at once; this bounds a change it missed.
 */
const KNOWN_MS = 10_000;

/**
 * Whether a request through an Enterprise Grid org-wide installation names one of that organisation's
 * workspaces. Its payloads name no team, only the person's own (`user.team_id`): in a channel shared with
 * another organisation (Slack Connect) that is a workspace the installation does not serve, and a request
 * scoped to it would read and change that other customer's rows and use its Mint account. Only a workspace
 * Slack listed as the organisation's (auth.teams.list, team_access_granted: installation_teams) is served; a
 * request naming any other is refused. Requests of a workspace's own installation are not asked about.
 */
export class OrgWorkspaceCheck {
  /**
   * The organisation's installation (`E…`) each workspace is known to be served by; made at the first request
   * through an org-wide installation (an LRU with a ttl allocates its 50,000 places at once, and most apps never
   * see such a request).
   */
  private known: LRUCache<string, string> | undefined;

  constructor(private readonly store: Pick<Store, 'installationRows' | 'changes'>) {
    store.changes.on('org-workspace', (teamId) => this.known?.delete(teamId));
    store.changes.on('installation', (id) => {
      if (id.startsWith('E')) this.known?.clear(); // an organisation's installation changed: rare, read again
    });
    store.changes.onCatchUp(() => Promise.resolve(this.known?.clear()));
  }

  async serves(context: Pick<Context, 'isEnterpriseInstall' | 'enterpriseId'>, teamId: string): Promise<boolean> {
    if (context.isEnterpriseInstall !== true) return true;
    const org = context.enterpriseId ? `E${context.enterpriseId}` : undefined;
    if (!org || !teamId) return false;
    const known = (this.known ??= new LRUCache<string, string>({ max: 50_000, ttl: KNOWN_MS }));
    if (known.get(teamId) === org) return true;
    const served = (await this.store.installationRows.membershipOf(teamId))?.installationId === org;
    if (served) known.set(teamId, org);
    return served;
  }
}
