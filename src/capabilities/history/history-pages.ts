import type { ModalView } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { CapabilityDeps } from '../../deps.js';
import { noticeModal } from '../../platform/blocks/notice-modal.js';
import { openModalToUpdate } from '../../platform/blocks/open-modal.js';
import { updateModal } from '../../platform/blocks/update-modal.js';
import type { Logger } from '../../platform/ops/telemetry/create-logger.js';
import type { ButtonRequest, Ended, FormRequest } from '../../platform/slack/pipeline/listen.js';
import { invalidInput } from '../../platform/slack/pipeline/request-ended.js';
import { searchWords } from '../../platform/store/history/entry.js';
import type { HistoryCursor, HistoryItem, HistoryQuery } from '../../platform/store/history/search.js';
import { detailsView } from './history-details.js';
import { PAGE_SIZE, SEARCH_BLOCKS, historyView, loadingView, readSearchForm } from './history-modal.js';
import { type Viewer, mayFilterOthers, scopeText, viewerOf, visibleResult } from './history-viewer.js';
import { type ReaderZones, dayEnd, dayStart } from './reader-zone.js';
import { type HistoryFilters, type PageState, decodePageState } from './page-state.js';

export type HistoryDeps = Pick<
  CapabilityDeps,
  'store' | 'approvers' | 'settingsAdmins' | 'settings' | 'logger' | 'decisions' | 'config'
> & {
  /** Readers' time zones (From / To are days of the reader's). */
  zones: ReaderZones;
};
/**
 * How long the first page may take before the modal opens (or a search answers) with a placeholder: the trigger
 * and a submission's answer last 3 s.
 */
const FIRST_PAGE_WAIT_MS = 1_200;

/**
 * Budgets Previous may read through toward the newer rows before it shows where it stopped (Keep searching then
 * goes on): far more than a person's Keep searching clicks cross, while a page still answers in seconds.
 */
const PREVIOUS_ROUNDS = 50;

/**
 * Which page to read: the first, the one after or before the page a state shows, or the rest of its search
 * from where it stopped (Keep searching).
 */
export type Turn = 'first' | 'next' | 'previous' | 'continue';

/** Said when a person filters on someone else's rows without the right to see them (form, or forged page). */
export const OTHERS_ROWS_TEXT =
  'You can see only what you made (audit viewers and settings admins see everything; deletion approvers the requests they were asked to decide). Leave “Made by” empty, or choose yourself.';

/**
 * The page a viewer asked for, as a modal: their rights asked afresh, the filters applied within them (From /
 * To as days of the viewer's time zone), the page read by keyset from the state's first or last row, or from
 * where its search stopped.
 */
export async function pageView(
  deps: HistoryDeps,
  at: { teamId: string; userId: string; client: WebClient },
  filters: HistoryFilters,
  turn: { from: PageState; to: Turn } | undefined,
  viewer?: Viewer,
): Promise<ModalView> {
  const [who, zone] = await Promise.all([
    viewer ?? viewerOf(deps, at.userId, at.teamId),
    deps.zones.of(at.client, at.teamId, at.userId),
  ]);
  const from = turn?.from;
  const to = turn?.to ?? 'first';
  const stopped = to === 'continue' ? from?.stopped : undefined;
  const direction = to === 'previous' || stopped?.toward === 'newer' ? 'newer' : 'older';
  // Previous from a page that found nothing before its search stopped reads back from where it stopped.
  const cursor: HistoryCursor | undefined =
    to === 'next' ? from?.last : to === 'previous' ? (from?.first ?? from?.stopped?.at) : stopped?.at;
  const query: HistoryQuery = {
    teamId: at.teamId,
    viewer: who,
    words: searchWords(filters.words),
    kind: filters.kind,
    actorId: filters.who,
    from: filters.from ? dayStart(filters.from, zone) : undefined,
    until: filters.to ? dayEnd(filters.to, zone) : undefined,
    direction,
    cursor,
    limit: PAGE_SIZE,
    budget: deps.config.history.scanRows,
  };
  const people = query.words?.length ? await deps.store.historyPeople.peopleNamed(at.teamId, query.words) : undefined;
  let page = await deps.store.history.page({ ...query, people });
  // Previous from a page Keep searching reached: the rows just newer than it may hold no match within a budget,
  // but the page the person came from lies further on, so the reading goes on toward it (an empty "searched
  // forward" page is not the page they had seen) until it finds results or reaches the newest row.
  for (
    let round = 1;
    to === 'previous' && page.items.length === 0 && page.stoppedAt && round < PREVIOUS_ROUNDS;
    round += 1
  )
    page = await deps.store.history.page({ ...query, people, cursor: page.stoppedAt });
  const shown = page.items.length;
  // Results newest first: read toward the older ones, this page comes after those shown so far; toward the
  // newer ones, before them (and at the top once nothing newer is left).
  const before = !from
    ? 0
    : direction === 'older'
      ? from.before + from.shown
      : page.more || page.stoppedAt
        ? Math.max(0, from.before - shown)
        : 0;
  const state: PageState = {
    team: at.teamId,
    user: at.userId,
    filters,
    before,
    shown,
    first: cursorOf(page.items[0]),
    last: cursorOf(page.items.at(-1)),
    newer: direction === 'newer' ? page.more : before > 0,
    older: direction === 'older' ? page.more : true,
    ...(page.stoppedAt ? { stopped: { at: page.stoppedAt, toward: direction } } : {}),
  };
  const [deletions, jobs] = await Promise.all([statuses(deps, page.items), jobSummaries(deps, at.teamId, page.items)]);
  return historyView({
    state,
    items: page.items,
    scope: scopeText(who),
    statuses: deletions,
    jobs,
    searchedOn: Boolean(stopped),
    zone,
  });
}

/** `/mintlink history [words]` and Home's History: the modal, with its first page (or a placeholder first). */
export async function openHistory(
  deps: HistoryDeps,
  request: { client: WebClient; triggerId: string; teamId: string; userId: string; logger: Logger },
  filters: HistoryFilters,
): Promise<void> {
  const first = pageView(deps, request, filters, undefined);
  first.catch(() => undefined); // awaited below; a failure before then must not go unhandled
  const quick = await Promise.race([first, delay(FIRST_PAGE_WAIT_MS)]);
  if (quick) {
    await openModalToUpdate(request.client, request.triggerId, quick);
    return;
  }
  const viewId = await openModalToUpdate(request.client, request.triggerId, loadingView(filters));
  const view = await first;
  if (viewId) await updateModal(request.client, viewId, view, request.logger);
}

/** Search pressed: the form's filters, checked, and the first page in place of the modal. */
export function handleSearch(deps: HistoryDeps) {
  return async ({ ack, body, view, teamId, client }: FormRequest): Promise<Ended> => {
    const form = readSearchForm(view.state.values);
    if (!form.ok) return ack({ response_action: 'errors', errors: form.errors });
    const userId = body.user.id;
    const shown = decodePageState(view.private_metadata);
    const refusal = stateRefusal(shown, teamId, userId);
    if (refusal) {
      await ack({ response_action: 'update', view: noticeModal('History', refusal) });
      return 'refused';
    }
    const viewer = await viewerOf(deps, userId, teamId);
    if (form.filters.who && form.filters.who !== userId && !mayFilterOthers(viewer))
      return ack({ response_action: 'errors', errors: { [SEARCH_BLOCKS.who]: OTHERS_ROWS_TEXT } });
    // Slack waits 3 s for the answer: a slow page is shown in place of a placeholder instead (as openHistory does).
    const first = pageView(deps, { teamId, userId, client }, form.filters, undefined, viewer);
    first.catch(() => undefined); // awaited below; a failure before then must not go unhandled
    const quick = await Promise.race([first, delay(FIRST_PAGE_WAIT_MS)]);
    if (quick) return ack({ response_action: 'update', view: quick });
    await ack({ response_action: 'update', view: loadingView(form.filters) });
    await updateModal(client, view.id, await first, deps.logger);
  };
}

/**
 * Previous / Next: the page before or after the one shown; Keep searching: the rest of its search from where it
 * stopped. In place, and only for whose page it is.
 */
export function handleTurn(deps: HistoryDeps, to: Exclude<Turn, 'first'>) {
  return async ({ body, client, teamId }: ButtonRequest): Promise<Ended> => {
    const view = body.view;
    if (!view) throw invalidInput('This button works only in the History window. Open it with `/mintlink history`.');
    const userId = body.user.id;
    const shown = decodePageState(view.private_metadata);
    const refusal = stateRefusal(shown, teamId, userId);
    if (refusal || !shown || (to === 'continue' && !shown.stopped)) {
      await updateModal(client, view.id, noticeModal('History', refusal ?? NOT_A_PAGE_TEXT), deps.logger);
      return 'refused';
    }
    const viewer = await viewerOf(deps, userId, teamId);
    if (shown.filters.who && shown.filters.who !== userId && !mayFilterOthers(viewer)) {
      await updateModal(client, view.id, noticeModal('History', `:no_entry: ${OTHERS_ROWS_TEXT}`), deps.logger);
      return 'refused';
    }
    const next = await pageView(deps, { teamId, userId, client }, shown.filters, { from: shown, to }, viewer);
    // For the page as it was clicked only: a search submitted meanwhile stays.
    await updateModal(client, view.id, next, deps.logger, view.hash);
  };
}

/** Details: the result's whole story, pushed over the list (Close comes back to it). */
export function handleDetails(deps: HistoryDeps) {
  return async ({ body, action, client, teamId }: ButtonRequest): Promise<Ended> => {
    const userId = body.user.id;
    const viewer = await viewerOf(deps, userId, teamId);
    const allowed = await visibleResult(deps, teamId, action.value ?? '', viewer);
    const view = allowed
      ? await detailsView(deps, allowed, userId)
      : noticeModal('History', ':no_entry: There is no such result that you may see in this workspace.');
    await client.views.push({ trigger_id: body.trigger_id, view });
    return allowed ? undefined : 'refused';
  };
}

const NOT_A_PAGE_TEXT = ':warning: This History window no longer works. Open it again with `/mintlink history`.';

/** Why a page state may not be used by this person in this workspace (forged, or someone else's). */
function stateRefusal(state: PageState | undefined, teamId: string, userId: string): string | undefined {
  if (!state) return undefined;
  if (state.team !== teamId) return ':no_entry: This History page belongs to another workspace. Nothing was shown.';
  if (state.user !== userId)
    return ':no_entry: This History page is someone else’s. Open your own with `/mintlink history`.';
  return undefined;
}

/** The status now of each deletion request on the page (the row keeps the asking's). */
async function statuses(deps: HistoryDeps, items: readonly HistoryItem[]): Promise<Map<string, string>> {
  const ids = items.flatMap((item) => (item.kind === 'deletion' && item.requestId ? [item.requestId] : []));
  const found = new Map<string, string>();
  if (ids.length === 0) return found;
  const requests = deps.store.deletionRequests.forTeam(items[0]?.teamId ?? '');
  await Promise.all(
    ids.map(async (id) => {
      const request = await requests.get(id);
      if (request) found.set(id, request.status);
    }),
  );
  return found;
}

/** The state and counts now of each bulk job on the page, in one query (the row keeps what the job was given). */
function jobSummaries(deps: HistoryDeps, teamId: string, items: readonly HistoryItem[]) {
  const ids = items.flatMap((item) => (item.kind === 'bulk' && item.jobId ? [item.jobId] : []));
  return deps.store.bulkJobs.inTeam(teamId).summaries(ids);
}

function cursorOf(item: HistoryItem | undefined): HistoryCursor | undefined {
  return item ? { madeAt: item.madeAt.toISOString(), id: item.id } : undefined;
}

function delay(ms: number): Promise<undefined> {
  return new Promise((resolve) => setTimeout(() => resolve(undefined), ms).unref());
}
