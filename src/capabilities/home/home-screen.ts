import type { CapabilityStore } from '../../deps.js';
import type { MintServiceStatus } from '../../platform/mint/mint-api-client.js';
import type { HomeEntry, HomeScreen } from '../../platform/slack/app-home/home-publisher.js';
import { approvedRequestStates } from './request-states.js';
import { ACTIVITY_SHOWN, appStatusLines, type HomeContent, homeView } from './home-view.js';

export interface HomeScreenSources {
  store: CapabilityStore;
  /** How the workspace's Mint account last answered. */
  mint: (teamId: string | undefined) => Promise<MintServiceStatus | undefined>;
}

/** App Home's screen, which the publisher builds each Home with: the entries' parts, the user's activity, the status. */
export function homeScreen(sources: HomeScreenSources): HomeScreen {
  return async (userId, teamId, entries) => homeView(await homeContent(sources, userId, teamId, entries));
}

/** What one user's Home in their workspace shows, read fresh. */
async function homeContent(
  sources: HomeScreenSources,
  userId: string,
  teamId: string | undefined,
  entries: readonly HomeEntry[],
): Promise<HomeContent> {
  const [flows, sections, activity, mint] = await Promise.all([
    flowsFor(entries, userId, teamId),
    Promise.all(
      entries.map(async (e) => (e.blocks ? { top: e.top, blocks: await e.blocks(userId, teamId) } : undefined)),
    ),
    sources.store.audit.list({ actorId: userId, teamId, limit: ACTIVITY_SHOWN }),
    sources.mint(teamId),
  ]);
  return {
    flows,
    requestStates: await approvedRequestStates(sources.store, activity),
    top: sections.flatMap((s) => (s?.top ? s.blocks : [])),
    sections: sections.flatMap((s) => (s && !s.top ? s.blocks : [])),
    activity,
    status: [...appStatusLines(mint), ...entries.flatMap((e) => (e.status ? [e.status(teamId)] : []))],
  };
}

/** The flows of the entries this user may use, in the entries' order. */
async function flowsFor(
  entries: readonly HomeEntry[],
  userId: string,
  teamId: string | undefined,
): Promise<Array<NonNullable<HomeEntry['flow']>>> {
  const flows = entries.flatMap((e) => (e.flow ? [e.flow] : []));
  const shown = await Promise.all(flows.map((flow) => flow.shownTo?.(userId, teamId) ?? Promise.resolve(true)));
  return flows.filter((_, i) => shown[i]);
}
