import { TEST_TEAM_ID } from '../../kit/slack-ids.js';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { writeAuditCsv } from '../../../src/capabilities/audit-export/write-audit-csv.js';
import { DELETIONS } from '../../../src/capabilities/deletions/actions.js';
import { FIELDS } from '../../../src/capabilities/settings/settings-form.js';
import { DeletionFlow } from '../../kit/deletion-flow.js';
import { useFakes } from '../../kit/fakes.js';
import type { ListenerApp } from '../../kit/listener-app.js';
import { SettingsFlow, forgedHome } from '../../kit/settings-flow.js';
import { expectNoRejectedSlackCalls, expectNoSecretsLeaked, textOf } from '../../kit/slack-checks.js';
import { userContext, viewSubmission } from '../../kit/slack-payloads.js';
import { sqliteDatabase, type TestDatabase } from '../../kit/store-engines.js';
import { AUDIT_EXPORT } from '../../../src/capabilities/audit-export/actions.js';
import { SETTINGS } from '../../../src/capabilities/settings/actions.js';

const APPROVAL = 'C0APPROVE';
const NEW_CHANNEL = 'C0NEWAPPR';
const ADMIN = 'U0ADMIN01'; // a settings admin (SETTINGS_ADMINS)
const ADMIN2 = 'U0ADMIN02';
const ALICE = 'U0ALICE01'; // asks; never an approver
const BOB = 'U0BOB0001'; // the approver before the change
const DAVE = 'U0DAVE004'; // approvers after it
const EVE = 'U0EVE0005';
const CAROL = 'U0CAROL03'; // in the user group
const VIC = 'U0VIC0001'; // audit viewer after the change
const GROUP = 'S0GROUP01';
const ENV = {
  APPROVAL_CHANNEL_ID: APPROVAL,
  DELETION_APPROVERS: BOB,
  SETTINGS_ADMINS: ADMIN,
  MAX_WORK_IN_FLIGHT: '40', // the bulk concurrency may go up to 20
};

describe('settings administered from App Home', () => {
  const fakes = useFakes();
  const settings = new SettingsFlow(fakes);
  const flow = new DeletionFlow(fakes, APPROVAL);
  const newFlow = new DeletionFlow(fakes, NEW_CHANNEL);
  let db: TestDatabase;
  let app: ListenerApp;

  beforeAll(async () => {
    fakes.slack.userGroups.set(GROUP, [CAROL]);
    fakes.slack.userGroups.set('S0EMPTY01', []);
    db = sqliteDatabase();
    app = await fakes.startListenerApp({ env: { ...ENV, DATABASE_URL: db.databaseUrl } });
  });
  afterAll(async () => {
    expectNoSecretsLeaked(fakes.slack, app);
    await app?.stop();
  });
  /** Slack's refusals a test asked for (a channel or a group that does not exist): none other is expected. */
  const expectedRefusals = new Set<string>();
  afterEach(() => {
    fakes.slack.calls.splice(
      0,
      fakes.slack.calls.length,
      ...fakes.slack.calls.filter((c) => c.answer?.ok !== false || !expectedRefusals.has(String(c.answer.error))),
    );
    expectNoRejectedSlackCalls(fakes.slack);
  });

  it('shows Settings on Home to settings admins only', async () => {
    expect(textOf(await settings.home(app, ADMIN))).toContain('*Settings* (you are a settings admin)');
    expect(JSON.stringify(await settings.home(app, ADMIN))).toContain(SETTINGS.buttons.open.actionId);
    const aliceHome = await settings.home(app, ALICE);
    expect(JSON.stringify(aliceHome)).not.toContain(SETTINGS.buttons.open.actionId);
    expect(textOf(aliceHome)).not.toContain('*Settings*');
  });

  it('an admin changes every setting: audited, announced in both channels, and the next request follows', async () => {
    const before = await flow.request(app, ['cus_old1'], ALICE); // in flight: quorum 1, approver Bob
    const form = await settings.open(app, ADMIN, await settings.home(app, ADMIN));
    expect(form.callback_id).toBe(SETTINGS.forms.save.callbackId);
    const ack = await settings.save(
      app,
      form,
      {
        [FIELDS.approverUsers]: [DAVE, EVE],
        [FIELDS.approverGroups]: [GROUP],
        [FIELDS.channel]: NEW_CHANNEL,
        [FIELDS.quorum]: '2',
        [FIELDS.largeQuorum]: '3',
        [FIELDS.largeAt]: '3',
        [FIELDS.ttlHours]: '10',
        [FIELDS.remindHours]: '1.5',
        [FIELDS.viewerUsers]: [VIC],
        [FIELDS.bulkConcurrency]: '7',
        [FIELDS.adminUsers]: [ADMIN, ADMIN2],
      },
      ADMIN,
    );
    expect(ack).toMatchObject({ response_action: 'update' });
    expect(textOf(ack)).toContain('*Saved.*');
    expect(textOf(ack)).toContain(`The quorum: 1 approval → 2 approvals (3 from 3 customers up)`);

    // Announced in the old channel and the new one, saying requests in flight keep their policy.
    for (const channel of [APPROVAL, NEW_CHANNEL]) {
      const post = await fakes.slack.waitForCall(
        'chat.postMessage',
        (c) => c.params.channel === channel && textOf(c.params.blocks).includes('changed Mintlink'),
      );
      const text = textOf(post.params.blocks);
      expect(text).toContain(`<@${ADMIN}> changed Mintlink's settings`);
      expect(text).toContain('the quorum from 1 approval to 2 approvals (3 from 3 customers up)');
      expect(text).toContain(`the approval channel from <#${APPROVAL}> to <#${NEW_CHANNEL}>`);
      expect(text).toContain(`the deletion approvers from <@${BOB}> to <@${DAVE}>, <@${EVE}>, <!subteam^${GROUP}>`);
      expect(text).toContain('Deletion requests already waiting keep the quorum, approvers and expiry');
    }

    // Audited: who, old and new; and in the audit export.
    const [entry] = (await settings.audit(app)).filter((e) => e.outcome === 'succeeded');
    expect(entry).toMatchObject({ actorId: ADMIN, operation: 'settings.change', teamId: 'T0TEST001' });
    expect(entry?.inputs).toMatchObject({
      version: 1,
      quorum: { from: '1 approval', to: '2 approvals (3 from 3 customers up)' },
      requestTtlHours: { from: '72 hours', to: '10 hours' },
      remindAfterHours: { from: 'after 24 hours', to: 'after 1.5 hours' },
      bulkConcurrency: { from: '4 Mint calls at once', to: '7 Mint calls at once' },
      auditViewers: { from: 'the deletion approvers', to: VIC },
    });
    const store = app.openStore();
    const csv = join(mkdtempSync(join(tmpdir(), 'settings-audit-')), 'audit.csv');
    try {
      const since = new Date(Date.now() - 60_000);
      await writeAuditCsv(
        store,
        { teamId: TEST_TEAM_ID, since, until: new Date(), operation: 'settings', actorId: undefined },
        csv,
      );
    } finally {
      await store.close();
    }
    expect(readFileSync(csv, 'utf8')).toContain('settings.change');
    expect(readFileSync(csv, 'utf8')).toContain('the quorum: 1 approval -> 2 approvals (3 from 3 customers up)');

    // The next request follows: the new channel, quorum and approvers (recorded on it), and expiry.
    const next = await newFlow.request(app, ['cus_new1'], ALICE);
    expect(textOf(newFlow.approvalMessage(next.ts))).toContain('needs 2 approvals from different approvers');
    const stored = await newFlow.stored(app, next.id);
    expect(stored?.approvers).toEqual({ users: [DAVE, EVE], userGroups: [GROUP] });
    expect(stored!.expiresAt.getTime() - stored!.createdAt.getTime()).toBe(10 * 3_600_000);
    const large = await newFlow.request(app, ['cus_l1', 'cus_l2', 'cus_l3'], ALICE);
    expect((await newFlow.stored(app, large.id))?.approvalsNeeded).toBe(3);

    // Bob is no approver of the new request; Carol (through the group) is.
    const url = await app.click(newFlow.approvalMessage(next.ts), DELETIONS.buttons.approve.actionId, BOB);
    const [refusal] = await fakes.slack.waitForResponse(url);
    expect(textOf(refusal?.body)).toContain('Only the approvers of this request can decide it');
    expect(await newFlow.approve(app, next.ts, CAROL)).toMatchObject({ response_action: 'update' });
    expect(await newFlow.approve(app, next.ts, DAVE)).toMatchObject({ response_action: 'update' });
    await newFlow.waitForStatus(next.ts, '*Deleted* 1 customer');

    // Home follows each request's own approvers: Bob still finds the request in flight there; Dave, an approver
    // now, does not (he could not decide it), though he finds the new one.
    expect(textOf(await settings.home(app, BOB))).toContain(before.id);
    const daveHome = textOf(await settings.home(app, DAVE));
    expect(daveHome).not.toContain(before.id);
    expect(daveHome).toContain(large.id);

    // The request in flight keeps its policy: Bob alone still approves it, and one approval deletes it.
    expect(await flow.approve(app, before.ts, BOB)).toMatchObject({ response_action: 'update' });
    await flow.waitForStatus(before.ts, '*Deleted* 1 customer');

    // Vic may now export the audit log; Bob (an approver no more, no viewer) may not.
    const opened = fakes.slack.callsTo('views.open').length;
    await app.clickOnHome(
      forgedHome(AUDIT_EXPORT.buttons.exportFromHome.actionId),
      AUDIT_EXPORT.buttons.exportFromHome.actionId,
      VIC,
    );
    await fakes.slack.waitFor(() => fakes.slack.callsTo('views.open').length > opened, 3_000, 'the export form');
    expect(fakes.slack.lastOpenedView().callback_id).toBe(AUDIT_EXPORT.forms.export.callbackId);
    await app.clickOnHome(
      forgedHome(AUDIT_EXPORT.buttons.exportFromHome.actionId),
      AUDIT_EXPORT.buttons.exportFromHome.actionId,
      BOB,
    );
    await fakes.slack.waitFor(() => fakes.slack.callsTo('views.open').length > opened + 1, 3_000, 'a notice');
    expect(textOf(fakes.slack.lastOpenedView())).toContain('Only the audit viewers');

    // The form opens again with the saved values; Home names who changed them.
    const again = await settings.open(app, ADMIN2);
    expect(again.private_metadata).toBe(JSON.stringify({ version: 1 }));
    expect(textOf(again)).toContain(`set by <@${ADMIN}>`);
    expect(textOf(await settings.home(app, ADMIN2))).toContain(`Last changed by <@${ADMIN}>`);
  });

  it('the workflow step follows the same settings: the new channel, quorum and approvers', async () => {
    await app.runStep(DELETIONS.steps.requestDeletion.callbackId, {
      customer_ids: ['cus_step1'],
      reason: 'Erasure from a workflow',
      requester: userContext(ALICE),
    });
    const post = await fakes.slack.waitForCall(
      'chat.postMessage',
      (c) => c.params.channel === NEW_CHANNEL && textOf(c.params.blocks).includes('cus_step1'),
    );
    expect(textOf(post.params.blocks)).toContain('needs 2 approvals from different approvers');
    const id = /DR-[A-Z0-9]{6}/.exec(textOf(post.params.blocks))?.[0] ?? '';
    expect((await newFlow.stored(app, id))?.approvers).toEqual({ users: [DAVE, EVE], userGroups: [GROUP] });
  });

  it('refuses and audits a non-admin who forges the button or the submission; nothing is stored', async () => {
    const version = (await settings.stored(app))?.version ?? 0;
    const notice = await settings.open(app, ALICE);
    expect(notice.callback_id).toBeUndefined();
    expect(textOf(notice)).toContain("Only settings admins can see or change Mintlink's settings");

    const form = await settings.open(app, ADMIN);
    const ack = await settings.save(app, form, { [FIELDS.quorum]: '1' }, ALICE);
    expect(textOf(ack)).toContain("Only settings admins can change Mintlink's settings. Nothing was changed.");
    await app.waitForIdle();
    expect((await settings.stored(app))?.version).toBe(version);
    const refused = (await settings.audit(app)).filter((e) => e.outcome === 'refused' && e.actorId === ALICE);
    expect(refused.map((e) => [e.operation, e.detail])).toEqual([
      ['settings.open', 'not a settings admin'],
      ['settings.change', 'not a settings admin'],
    ]);
  });

  it('refuses bad values from a forged payload with a clear error, and stores nothing', async () => {
    const form = await settings.open(app, ADMIN);
    const version = (await settings.stored(app))?.version;
    const tenThousand = Array.from({ length: 10_000 }, (_, i) => `U${String(i).padStart(8, '0')}`);
    fakes.slack.unknownChannels.add('C0NOSUCH1');
    expectedRefusals.add('channel_not_found');
    const values = settings.entries(form, {
      [FIELDS.quorum]: '-2',
      [FIELDS.channel]: 'C0NOSUCH1',
      [FIELDS.approverUsers]: tenThousand,
      [FIELDS.remindHours]: '0.0001',
    });
    const ack = await app.interact(viewSubmission(form, stateOf(form, values), ADMIN));
    const errors = (ack as { errors: Record<string, string> }).errors;
    expect(ack).toMatchObject({ response_action: 'errors' });
    expect(Object.values(errors)).toEqual(
      expect.arrayContaining([
        'Enter a whole number from 1 to 20.',
        'Choose at most 100 people; 10000 were given.',
        'Enter 0 (no reminders) or at least 0.25 hours.',
      ]),
    );
    // The channel is checked by Slack once the values are sound.
    const channelAck = await settings.save(app, form, { [FIELDS.channel]: 'C0NOSUCH1' }, ADMIN);
    expect(textOf(channelAck)).toContain('Mintlink cannot see this channel');
    expect(textOf(channelAck)).toContain('/invite @Mintlink');
    await app.waitForIdle();
    expect((await settings.stored(app))?.version).toBe(version);
  });

  it('checks inline: an unreachable quorum, a channel without the app, an unreadable group, the last admin', async () => {
    const form = await settings.open(app, ADMIN);
    const version = (await settings.stored(app))?.version;
    fakes.slack.channelsWithoutBot.add('C0NOTIN01');
    expectedRefusals.add('no_such_subteam');
    const ack = await settings.save(
      app,
      form,
      {
        [FIELDS.approverUsers]: [DAVE, EVE],
        [FIELDS.approverGroups]: [],
        [FIELDS.quorum]: '3',
        [FIELDS.largeQuorum]: null,
        [FIELDS.largeAt]: null,
        [FIELDS.channel]: 'C0NOTIN01',
        [FIELDS.viewerGroups]: ['S0GONE001'],
      },
      ADMIN,
    );
    const text = textOf(ack);
    expect(text).toContain('3 approvals from different approvers are needed, but the approvers are 2 people');
    expect(text).toContain('Mintlink is not in #c0notin01');
    expect(text).toContain('The user group S0GONE001 cannot be read (no_such_subteam)');

    const alone = await settings.save(app, form, { [FIELDS.adminUsers]: [ADMIN2], [FIELDS.adminGroups]: [] }, ADMIN);
    expect(alone).toMatchObject({ response_action: 'update' }); // another admin stays: allowed
    const current = await settings.open(app, ADMIN2);
    const last = await settings.save(
      app,
      current,
      { [FIELDS.adminUsers]: [], [FIELDS.adminGroups]: ['S0EMPTY01'] },
      ADMIN2,
    );
    expect(textOf(last)).toContain('You would remove yourself as the last settings admin');
    await app.waitForIdle();
    expect((await settings.stored(app))?.version).toBe((version ?? 0) + 1);
  });

  it('two admins saving at once: one save, one "changed meanwhile", nothing overwritten', async () => {
    const first = await settings.open(app, ADMIN2);
    const second = await settings.open(app, ADMIN2);
    const version = (await settings.stored(app))?.version ?? 0;
    const acks = await Promise.all([
      settings.save(app, first, { [FIELDS.ttlHours]: '20' }, ADMIN2),
      settings.save(app, second, { [FIELDS.ttlHours]: '30' }, ADMIN2),
    ]);
    const texts = acks.map((ack) => textOf(ack));
    expect(texts.filter((t) => t.includes('*Saved.*'))).toHaveLength(1);
    expect(texts.filter((t) => t.includes('*The settings changed meanwhile:*'))).toHaveLength(1);
    const stored = await settings.stored(app);
    expect(stored?.version).toBe(version + 1);
    const saved = texts.findIndex((t) => t.includes('*Saved.*'));
    expect(stored?.settings.requestTtlHours?.value).toBe(saved === 0 ? 20 : 30);
    // The loser's form shows the settings as they are now, to change again.
    expect(JSON.stringify(acks[1 - saved])).toContain(`"initial_value":"${saved === 0 ? 20 : 30}"`);
  });
});

describe('nobody can lock a workspace out of its settings', () => {
  const fakes = useFakes();
  const settings = new SettingsFlow(fakes);
  let app: ListenerApp;
  const OWNER = 'U0OWNER01';

  beforeAll(async () => {
    app = await fakes.startListenerApp({ env: { ...ENV, DATABASE_URL: sqliteDatabase().databaseUrl } });
    fakes.slack.workspaceAdmins.add(OWNER);
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("keeps the operator's SETTINGS_ADMINS and the workspace owners as admins whoever is named in Slack", async () => {
    const form = await settings.open(app, ADMIN);
    const ack = await settings.save(app, form, { [FIELDS.adminUsers]: ['U0NOBODY1'] }, ADMIN);
    expect(textOf(ack)).toContain('*Saved.*');
    expect((await settings.stored(app))?.settings.settingsAdmins?.value).toEqual({
      users: ['U0NOBODY1'],
      userGroups: [],
    });
    // The admin of SETTINGS_ADMINS, and a workspace owner named nowhere, still open and change the settings.
    for (const user of [ADMIN, OWNER]) {
      expect(textOf(await settings.home(app, user))).toContain('*Settings* (you are a settings admin)');
      expect((await settings.open(app, user)).callback_id).toBe(SETTINGS.forms.save.callbackId);
    }
    const again = await settings.open(app, OWNER);
    expect(textOf(await settings.save(app, again, { [FIELDS.adminUsers]: [OWNER] }, OWNER))).toContain('*Saved.*');
    // Anyone else is still refused.
    expect(JSON.stringify(await settings.home(app, ALICE))).not.toContain(SETTINGS.buttons.open.actionId);
  });

  it('does not count the admin flags of someone from another organization (Slack Connect)', async () => {
    // users.info answers for people met in a shared channel too: their is_admin is about their own workspace.
    const PARTNER_ADMIN = 'U0PARTNR1';
    fakes.slack.workspaceAdmins.add(PARTNER_ADMIN);
    fakes.slack.externalUsers.set(PARTNER_ADMIN, 'T0PARTNER');
    try {
      expect(JSON.stringify(await settings.home(app, PARTNER_ADMIN))).not.toContain(SETTINGS.buttons.open.actionId);
      const refused = await settings.open(app, PARTNER_ADMIN);
      expect(refused.callback_id).not.toBe(SETTINGS.forms.save.callbackId);
      expect(textOf(refused)).toContain('Only settings admins');
      // The workspace's own owner still is one.
      expect((await settings.open(app, OWNER)).callback_id).toBe(SETTINGS.forms.save.callbackId);
    } finally {
      fakes.slack.workspaceAdmins.delete(PARTNER_ADMIN);
      fakes.slack.externalUsers.delete(PARTNER_ADMIN);
    }
  });

  it("answers a save within Slack's 3 seconds however slowly each user group is read", async () => {
    const groups = ['S0SLOW001', 'S0SLOW002', 'S0SLOW003'];
    for (const group of groups) fakes.slack.userGroups.set(group, [CAROL]);
    const form = await settings.open(app, OWNER);
    fakes.slack.answerNext('usergroups.users.list', { delayMs: 1_200 }, 3);
    const started = performance.now();
    const ack = await settings.save(app, form, { [FIELDS.approverGroups]: groups }, OWNER);
    expect(performance.now() - started).toBeLessThan(2_900);
    expect(textOf(ack)).toContain('*Saved.*');
  });
});

describe('SETTINGS_SOURCE=env', () => {
  const fakes = useFakes();
  const settings = new SettingsFlow(fakes);
  let app: ListenerApp;

  beforeAll(async () => {
    app = await fakes.startListenerApp({
      env: { ...ENV, SETTINGS_SOURCE: 'env', SETTINGS_ADMINS: undefined, DATABASE_URL: sqliteDatabase().databaseUrl },
    });
    fakes.slack.workspaceAdmins.add(ADMIN); // the default admins: the workspace's, as Slack reports them
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('shows the settings read-only and refuses every change', async () => {
    expect(textOf(await settings.home(app, ADMIN))).toContain('read-only here');
    expect(JSON.stringify(await settings.home(app, ALICE))).not.toContain(SETTINGS.buttons.open.actionId);
    const view = await settings.open(app, ADMIN);
    expect(view.submit).toBeUndefined();
    expect(textOf(view)).toContain('managed by the app');
    expect(textOf(view)).toContain(`<@${BOB}> _(DELETION_APPROVERS)_`);

    // A forged submission, with a form as the app would make it: refused, audited, nothing stored.
    const forged = {
      id: 'V0FORGED01',
      callback_id: SETTINGS.forms.save.callbackId,
      private_metadata: '{"version":0}',
      blocks: [],
    };
    const ack = await app.interact(
      viewSubmission(forged, { 'quorum.v0': { value: { type: 'number_input', value: '2' } } }, ADMIN),
    );
    expect(textOf(ack)).toContain('SETTINGS_SOURCE=env');
    await app.waitForIdle();
    expect(await settings.stored(app)).toBeUndefined();
    expect((await settings.audit(app)).map((e) => [e.operation, e.outcome, e.detail])).toEqual([
      ['settings.change', 'refused', 'env-only'],
    ]);
  });
});

/** The view's state with `values` (by block id) over its initial values, as Slack would send it. */
function stateOf(view: Record<string, any>, values: Record<string, unknown>): Record<string, unknown> {
  const state: Record<string, unknown> = {};
  for (const block of view.blocks ?? []) {
    if (block.type !== 'input') continue;
    const element = block.element;
    const entry = values[block.block_id];
    const initial =
      element.type === 'multi_users_select'
        ? { selected_users: entry ?? element.initial_users ?? [] }
        : element.type === 'multi_external_select'
          ? { selected_options: element.initial_options ?? [] }
          : element.type === 'conversations_select'
            ? { selected_conversation: entry ?? element.initial_conversation ?? null }
            : { value: entry ?? element.initial_value ?? null };
    state[block.block_id] = { [element.action_id]: { type: element.type, ...initial } };
  }
  return state;
}
