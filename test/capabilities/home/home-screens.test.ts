import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LINK_BLOCKS } from '../../../src/capabilities/links/link-form.js';
import { DeletionFlow } from '../../kit/deletion-flow.js';
import { useFakes } from '../../kit/fakes.js';
import type { ListenerApp } from '../../kit/listener-app.js';
import { homeText, messageText, withNames } from '../../kit/screen-text.js';
import { expectScreen } from '../../kit/screens.js';
import { expectNoRejectedSlackCalls, textOf } from '../../kit/slack-checks.js';
import { stableJobIds } from '../bulk/bulk-job-ids.js';
import { QUICK_BULK_PACE, ended, linkCsv, previewOf, progress, start } from '../bulk/bulk-kit.js';
import { BULK } from '../../../src/capabilities/bulk/actions.js';

/*
 * App Home as each kind of person sees it, before anything happened and after each flow: a requester, the
 * approvers, an audit viewer, a settings admin and someone with no rights. One story on one app, in order.
 * The Home of someone a flow concerns is read as Slack keeps it once the app's work is done, without the
 * person opening it again (Home must show the change at once), so a Home the app forgot to refresh shows its
 * old state here; the others are read after they open Home again. Golden screens under test/screens/home/.
 */

const APPROVAL = 'C0APPROVE1'; // #deletion-approvals
const ALICE = 'U0ALICE01'; // requester: asks for deletions, makes links, wallets and bulk jobs
const BEN = 'U0BEN0001'; // approver
const CHLOE = 'U0CHLOE01'; // approver
const DAN = 'U0DAN0001'; // audit viewer
const SAM = 'U0SAM0001'; // settings admin
const EVE = 'U0EVE0001'; // no rights
const directory = withNames({ users: { [SAM]: { name: 'Sam Rivera', tz: 'Europe/London' } } });

const PEOPLE = {
  requester: ALICE,
  approver: BEN,
  'second-approver': CHLOE,
  'audit-viewer': DAN,
  'settings-admin': SAM,
  'no-rights': EVE,
} as const;
type Kind = keyof typeof PEOPLE;

describe('App Home screens, for each kind of person, through every flow', () => {
  const fakes = useFakes();
  const flow = new DeletionFlow(fakes, APPROVAL);
  let app: ListenerApp;

  beforeAll(async () => {
    app = await fakes.startListenerApp({
      bulkPace: QUICK_BULK_PACE,
      env: {
        APPROVAL_CHANNEL_ID: APPROVAL,
        DELETION_APPROVERS: `${BEN},${CHLOE}`,
        DELETION_QUORUM: '2',
        AUDIT_VIEWERS: DAN,
        SETTINGS_ADMINS: SAM,
        BULK_CONCURRENCY: '1',
      },
    });
  });
  afterAll(async () => app?.stop());
  afterEach(() => expectNoRejectedSlackCalls(fakes.slack));

  /** `user` opens the Home tab; resolves once the app has published it. */
  async function open(user: string) {
    const published = () => fakes.slack.callsTo('views.publish').filter((c) => c.params.user_id === user).length;
    const before = published();
    await app.event({ type: 'app_home_opened', user, channel: `D${user.slice(1)}`, tab: 'home' });
    await fakes.slack.waitFor(() => published() > before, 5_000, `the Home of ${user}`);
    await app.waitForIdle();
  }

  /** The Home of this kind of person as Slack shows it now (after the app's work in flight has ended). */
  async function home(kind: Kind, state: string) {
    await app.waitForIdle();
    const user = PEOPLE[kind];
    await expectScreen(
      `home/${kind}--${state}`,
      stableJobIds(homeText(fakes.slack.view(user), { viewer: user, directory })),
    );
  }

  it('first visit: each person sees the flows and what they may do', async () => {
    for (const user of Object.values(PEOPLE)) await open(user);
    for (const kind of ['requester', 'approver', 'audit-viewer', 'settings-admin', 'no-rights'] as const)
      await home(kind, 'first-visit');
  });

  it('after a mint link is made', async () => {
    const { view } = await app.commandOpeningModal('link', { user_id: ALICE });
    await app.submitView(view, { [LINK_BLOCKS.nftId]: 'nft-spring-pass' }, ALICE);
    await fakes.slack.waitForCall('chat.postMessage', (c) => c.params.channel === ALICE);
    await home('requester', 'after-link-made');
  });

  it('after a wallet is made', async () => {
    const { view } = await app.commandOpeningModal('wallet', { user_id: ALICE });
    await app.submitView(view, {}, ALICE);
    await fakes.slack.waitForCall('chat.postMessage', (c) => c.params.channel === ALICE);
    await home('requester', 'after-wallet-made');
  });

  it('through a deletion request: asked, approved once, approved again and done', async () => {
    for (const id of ['cus_5d1e07', 'cus_77b3aa']) fakes.mint.customers.add(id);
    const { ts } = await flow.request(app, ['cus_5d1e07', 'cus_77b3aa'], ALICE, 'GDPR erasure, ticket #4312');
    await home('requester', 'deletion-requested');
    await home('approver', 'deletion-requested');
    await home('second-approver', 'deletion-requested');

    await flow.approve(app, ts, BEN);
    await flow.waitForStatus(ts, '*1 of 2 approvals*');
    await home('requester', 'deletion-1-of-2');
    await home('approver', 'deletion-1-of-2');
    await home('second-approver', 'deletion-1-of-2');

    await flow.approve(app, ts, CHLOE);
    await flow.waitForStatus(ts, '*Deleted*');
    await home('requester', 'deletion-done');
    await home('approver', 'deletion-done');
    await home('second-approver', 'deletion-done');
  });

  it('through a deletion request that is rejected', async () => {
    const { ts } = await flow.request(app, ['cus_0c4f19'], ALICE, 'Customer closed the account');
    const view = await flow.openDecision(app, ts, 'reject', BEN);
    await app.submitView(view, { reject_reason: 'No matching ticket' }, BEN);
    await flow.waitForStatus(ts, '*Rejected*');
    await home('requester', 'deletion-rejected');
    await home('approver', 'deletion-rejected');
  });

  it('through a deletion request whose deletion fails at the Mint service', async () => {
    fakes.mint.failNext('delete_customers', { mode: 'status', status: 503, body: { message: 'maintenance' } });
    const { ts } = await flow.request(app, ['cus_9e8d7c'], ALICE, 'Duplicate account');
    await flow.approve(app, ts, BEN);
    await flow.approve(app, ts, CHLOE);
    await flow.waitForStatus(ts, '*the deletion failed*');
    await home('requester', 'deletion-failed');
    await home('approver', 'deletion-failed');
    await home('second-approver', 'deletion-failed');
  });

  it('after a mint link fails at the Mint service', async () => {
    fakes.mint.failNext('create_link', { mode: 'status', status: 503, body: { message: 'maintenance' } }, 3);
    const { view } = await app.commandOpeningModal('link', { user_id: ALICE });
    await app.submitView(view, { [LINK_BLOCKS.nftId]: 'nft-spring-pass' }, ALICE);
    await fakes.slack.waitForCall('chat.postMessage', (c) => c.params.channel === ALICE);
    await home('requester', 'after-link-failed');
  });

  it('through a bulk job: paused, then run to the end', async () => {
    // The first row is on its way when Pause is pressed: the service answers it once the job says it is paused.
    let answer: () => void = () => undefined;
    fakes.mint.holdAnswers = new Promise<void>((resolve) => (answer = resolve));
    const preview = await previewOf(app, fakes.slack, linkCsv(3), { bulk_nft_id: 'nft-spring-pass' });
    const job = await start(app, fakes.slack, preview, ALICE);
    await fakes.slack.waitFor(() => fakes.mint.requestsTo('create_link').length === 1, 5_000, 'the first row');
    await app.click(progress(fakes.slack, job), BULK.buttons.pause.actionId, ALICE);
    await fakes.slack.waitFor(
      () => textOf(progress(fakes.slack, job).blocks).includes('*Paused* by'),
      5_000,
      'the job to pause',
    );
    answer();
    fakes.mint.holdAnswers = undefined;
    await fakes.slack.waitFor(
      () => textOf(progress(fakes.slack, job).blocks).includes('*1 done*'),
      5_000,
      'the job paused after its first row',
    );
    // Pause was pressed with the first row still on its way: Home shows where the paused job stands once that
    // row settled, as its message does, without Alice opening it again.
    await home('requester', 'bulk-job-paused');
    await app.click(progress(fakes.slack, job), BULK.buttons.resume.actionId, ALICE);
    await ended(fakes.slack, job);
    await home('requester', 'bulk-job-done');
  });

  it('after an audit export', async () => {
    const before = fakes.slack.uploadsTo(`D${DAN.slice(1)}`).length;
    await app.command('audit 7', { user_id: DAN });
    const upload = await fakes.slack.waitFor(
      () =>
        fakes.slack.uploadsTo(`D${DAN.slice(1)}`)[before]?.completed &&
        fakes.slack.uploadsTo(`D${DAN.slice(1)}`)[before],
      15_000,
      'the export',
    );
    const intro = fakes.slack.callsTo('chat.postMessage').findLast((c) => c.params.channel === DAN);
    expect(upload.filename).toMatch(/\.csv$/);
    await expectScreen(
      'audit-export/export-dm--done',
      messageText(intro?.params ?? {}, { viewer: DAN, directory, where: 'DM' }),
    );
    // The export is in Dan's activity once it has ended, without his opening Home again.
    await home('audit-viewer', 'after-audit-export');
  });

  it('after every flow: what the others see when they open Home again', async () => {
    for (const kind of ['settings-admin', 'no-rights'] as const) {
      await open(PEOPLE[kind]);
      await home(kind, 'after-every-flow');
    }
  });
});
