import { requestPosted } from '../../kit/deletion-flow.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DELETIONS } from '../../../src/capabilities/deletions/actions.js';
import { REASON_BLOCK } from '../../../src/capabilities/deletions/deletion-request-form.js';
import type { DeletionRequest } from '../../../src/platform/store/deletion-requests.js';
import type { ListenerApp } from '../../kit/listener-app.js';
import { startTwoWorkspaces } from '../../kit/listener-installs.js';
import { useFakes } from '../../kit/fakes.js';
import { textOf } from '../../kit/slack-checks.js';
import { TEST_TEAM_ID, TEST_USER_ID } from '../../kit/slack-ids.js';
import { buttonClick, viewSubmission, type PostedMessage, type SlackView } from '../../kit/slack-payloads.js';
import type { TestDatabase } from '../../kit/store-engines.js';
import { responseUrls, stateValues } from '../../kit/view-state.js';
import { OTHER_TEAM_ID, OTHER_USER_ID, inTeam } from '../../kit/workspaces.js';

/*
 * Slack Connect: workspace HOME installed the app and shares its approval channel with a connected
 * organisation (EXT, which has the app too). A person of EXT listed among HOME's approvers decides HOME's
 * requests from that channel. Slack names the person's own workspace in their payloads (user.team_id; a form's
 * `team` too), and the installing one where it matters for authorization (a click's `team`, a form's
 * `view.app_installed_team_id`): every row is read and changed in the installing workspace, HOME, and nothing
 * of EXT's is reached from HOME's channel, whatever ids a payload carries.
 */

const HOME = TEST_TEAM_ID;
const EXT = OTHER_TEAM_ID;
const CHANNEL_HOME = 'C0APPROVE';
const CHANNEL_EXT = 'C0XAPPROVE';
const ALICE = TEST_USER_ID; // asks in HOME
const ERIN = 'U0EXTERN01'; // a person of EXT: an approver in HOME (and in EXT)
const DAVE = OTHER_USER_ID; // asks in EXT
const NOT_FOUND = /Deletion request DR-[A-Z0-9]{6} was not found in this workspace\. Nothing was changed\./;

describe('a Slack Connect approver', () => {
  const fakes = useFakes();
  let db: TestDatabase;
  let app: ListenerApp;

  beforeAll(async () => {
    ({ app, db } = await startTwoWorkspaces(
      fakes,
      // HOME's approvers, by user id: a person of the connected organisation.
      { teamId: HOME, channelId: CHANNEL_HOME, approvers: [ERIN] },
      { teamId: EXT, userId: DAVE, channelId: CHANNEL_EXT, approvers: [ERIN] },
    ));
  });
  afterAll(async () => {
    await app?.stop();
    await db?.drop();
  });
  afterEach(() => expect(fakes.slack.failedCalls.map((c) => [c.method, c.answer?.error])).toEqual([]));

  /** `user` of workspace `team` asks there to delete `ids`; resolves with the request id and its message. */
  async function ask(team: string, user: string, ids: string[]) {
    for (const id of ids) fakes.mint.customers.add(id);
    const channel = team === HOME ? CHANNEL_HOME : CHANNEL_EXT;
    const { view } = await app.commandOpeningModal(`delete ${ids.join(' ')}`, { team_id: team, user_id: user });
    const values = stateValues(view, { [REASON_BLOCK]: `Ticket of ${team}` });
    const urls = responseUrls(view, values, () => fakes.slack.responseUrl());
    fakes.slack.applySubmissionAck(view.id, await app.interact(inTeam(viewSubmission(view, values, user, urls), team)));
    const { id, post } = await requestPosted(fakes, view.id, channel);
    return { id, message: () => fakes.slack.message(channel, String(post.answer?.ts)) };
  }

  /**
   * Erin clicks a button of a message in `installed`'s channel: the click names that workspace in `team`,
   * Erin's own in user.team_id. `value` forges the button's value. Resolves with the click's response_url.
   */
  async function erinClicks(installed: string, message: PostedMessage, actionId: string, value?: string) {
    const click = inTeam(buttonClick(fakes.slack, message, actionId, ERIN), installed);
    (click.user as { team_id: string }).team_id = EXT;
    if (value !== undefined) (click.actions as Array<{ value?: string }>)[0]!.value = value;
    await app.interact(click);
    return click.response_url as string;
  }

  /** Erin opens the Approve… modal of a message of `installed`'s channel; resolves with the view opened. */
  async function erinOpensApproval(installed: string, message: PostedMessage): Promise<SlackView> {
    const opened = fakes.slack.callsTo('views.open').length;
    await erinClicks(installed, message, DELETIONS.buttons.approve.actionId);
    await fakes.slack.waitFor(() => fakes.slack.callsTo('views.open').length > opened, 3_000, 'the modal');
    return fakes.slack.lastOpenedView();
  }

  /**
   * Erin submits a modal of the app's installation in `installed`, from EXT: the form names Erin's workspace in
   * `team` and user.team_id, the installing one in view.app_installed_team_id (what Bolt authorizes by).
   */
  async function erinSubmits(installed: string, view: SlackView) {
    const submission = inTeam(viewSubmission(view, stateValues(view, {}), ERIN), installed);
    submission.team = { id: EXT, domain: 'ext' };
    (submission.user as { team_id: string }).team_id = EXT;
    (submission.view as Record<string, unknown>).app_installed_team_id = installed;
    const ack = await app.interact(submission);
    fakes.slack.applySubmissionAck(view.id, ack);
    return ack;
  }

  async function stored(id: string): Promise<DeletionRequest | undefined> {
    const store = app.openStore();
    try {
      return await store.deletionRequests.get(id);
    } finally {
      await store.close();
    }
  }

  it('approves a deletion in the installing workspace, with its token and Mint account', async () => {
    const request = await ask(HOME, ALICE, ['cus_h1']);
    const view = await erinOpensApproval(HOME, request.message());
    expect(textOf(view)).toContain(request.id);
    await erinSubmits(HOME, view);
    await fakes.slack.waitFor(
      () => textOf(request.message()).includes('*Deleted* 1 customer') && request.message(),
      8_000,
      'the approval message to say deleted',
    );
    expect(fakes.mint.requestsTo('delete_customers').map((r) => r.body)).toEqual([['cus_h1']]);
    expect(await stored(request.id)).toMatchObject({ teamId: HOME, status: 'done' });
    const store = app.openStore();
    try {
      const approvals = (await store.audit.list({ teamId: HOME, limit: 100 })).filter(
        (e) => e.operation === 'customers.delete.approve' && e.inputs.requestId === request.id,
      );
      expect(approvals.map((e) => [e.actorId, e.teamId])).toEqual([[ERIN, HOME]]);
      expect((await store.audit.list({ teamId: EXT, limit: 100 })).map((e) => e.inputs.requestId)).not.toContain(
        request.id,
      );
    } finally {
      await store.close();
    }
  });

  it('reaches nothing of its own workspace from the connected channel, whatever ids the payloads name', async () => {
    const theirs = await ask(EXT, DAVE, ['cus_x1']);
    const mine = await ask(HOME, ALICE, ['cus_h2']);
    // A decision view the app opened for Erin in EXT for EXT's request (signed for both), and one in HOME.
    const approveInExt = await erinOpensApproval(EXT, theirs.message());
    await app.waitForIdle();
    const before = await stored(theirs.id);
    const patches = fakes.mint.requestsTo('delete_customers').length;

    // A click in HOME's channel naming EXT's request.
    const message = { channelId: CHANNEL_HOME, ts: '1700000000.000900', blocks: mine.message().blocks };
    const url = await erinClicks(HOME, message, DELETIONS.buttons.approve.actionId, theirs.id);
    const [answer] = await fakes.slack.waitForResponse(url);
    expect(textOf(answer?.body)).toMatch(NOT_FOUND);
    // EXT's own decision view submitted through HOME's installation.
    const ack = await erinSubmits(HOME, approveInExt);
    expect(textOf(ack)).toMatch(NOT_FOUND);

    await app.waitForIdle();
    expect(await stored(theirs.id)).toEqual(before);
    expect(fakes.mint.requestsTo('delete_customers')).toHaveLength(patches);
    expect((await stored(mine.id))?.status).toBe('pending');
  });
});
