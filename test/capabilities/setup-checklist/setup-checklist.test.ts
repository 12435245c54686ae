import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEMO_CONTRACT_ID } from '../../../src/operator/mock-mint-api/demo-templates.js';
import { useFakes } from '../../kit/fakes.js';
import type { ListenerApp } from '../../kit/listener-app.js';
import { SettingsFlow } from '../../kit/settings-flow.js';
import { expectNoSecretsLeaked, textOf } from '../../kit/slack-checks.js';
import type { SlackView } from '../../kit/slack-payloads.js';
import { sqliteDatabase } from '../../kit/store-engines.js';
import { TEST_TEAM_ID } from '../../kit/slack-ids.js';
import { homeText } from '../../kit/screen-text.js';
import { expectScreen } from '../../kit/screens.js';
import { SETUP_CHECKLIST } from '../../../src/capabilities/setup-checklist/actions.js';

const APPROVAL = 'C0APPROVE1'; // #deletion-approvals
const ADMIN = 'U0DAN0001'; // Dan, a settings admin (SETTINGS_ADMINS)
const ALICE = 'U0ALICE01'; // administers nothing
const ENV = {
  APPROVAL_CHANNEL_ID: APPROVAL,
  DELETION_APPROVERS: 'U0BEN0001,U0CHLOE01',
  SETTINGS_ADMINS: ADMIN,
};

/** The checklist's blocks on a Home: from its title to the divider after it (none: no checklist). */
function checklistOf(home: SlackView): string | undefined {
  const blocks = (home.blocks ?? []) as Array<Record<string, unknown>>;
  const start = blocks.findIndex((b) => textOf(b).includes('Setup checklist'));
  if (start < 0) return undefined;
  const end = blocks.findIndex((b, i) => i > start && b.type === 'divider');
  return textOf(blocks.slice(start, end));
}

describe('the Setup checklist on App Home', () => {
  const fakes = useFakes();
  const settings = new SettingsFlow(fakes);
  let app: ListenerApp;
  /** The admin's Home with the checklist, as on screen (its button is clicked later). */
  let withChecklist: SlackView;

  /** Moves the app's clock past the cooldown of Check again (Date.now, shared by the app, Slack and the test). */
  let shifted = 0;
  const pastCooldown = () => {
    shifted += 31_000;
  };
  beforeAll(async () => {
    const realNow = Date.now.bind(Date);
    vi.spyOn(Date, 'now').mockImplementation(() => realNow() + shifted);
    fakes.slack.channelsWithoutBot.add(APPROVAL);
    app = await fakes.startListenerApp({ env: { ...ENV, DATABASE_URL: sqliteDatabase().databaseUrl } });
  });
  afterAll(async () => {
    fakes.slack.channelsWithoutBot.delete(APPROVAL);
    expectNoSecretsLeaked(fakes.slack, app);
    await app?.stop();
    vi.restoreAllMocks();
  });

  it('shows settings admins what fails at the top of Home, each with what to do, and nobody else', async () => {
    const published = () => fakes.slack.callsTo('views.publish').filter((c) => c.params.user_id === ADMIN).length;
    await settings.home(app, ADMIN);
    // The checks run in the background, never during a publish: once they are in, the admin's Home shows them.
    await fakes.slack.waitFor(() => checklistOf(fakes.slack.view(ADMIN)), 10_000, 'the checklist on Home');
    const home = fakes.slack.view(ADMIN);
    withChecklist = home;
    const blocks = home.blocks as Array<Record<string, unknown>>;
    expect(textOf(blocks[1])).toContain('*Setup checklist* · 1 of 9 checks fails'); // right under the title
    const checklist = checklistOf(home) ?? '';
    expect(checklist).toContain(
      `:heavy_multiplication_x: Approval channel <#${APPROVAL}>: the app is not a member, so requests cannot be posted there\n→ Type /invite @Mintlink in that channel.`,
    );
    expect(checklist).toContain(':heavy_check_mark: Slack bot token: works in workspace Test');
    expect(checklist).toContain(':heavy_check_mark: Deletion approvers: <@U0BEN0001> and <@U0CHLOE01> (2 people)');
    expect(checklist).toContain(':warning: Mint service: not called with this key yet');
    expect(checklist).toContain('Check again');
    expect(published()).toBe(2);

    expect(checklistOf(await settings.home(app, ALICE))).toBeUndefined();
  });

  it('shows the Mint service’s answer from the next publish after a real call, at the time Home’s footer says', async () => {
    await app.command(`templates ${DEMO_CONTRACT_ID}`);
    await app.waitForIdle();
    const home = await settings.home(app, ADMIN);
    const checklist = checklistOf(home) ?? '';
    const checked = /:heavy_check_mark: Mint service: answered <!date\^(\d+)\^/.exec(checklist);
    const footer = /Mint service: answered <!date\^(\d+)\^/.exec(textOf(home.blocks?.at(-1)));
    expect(checked, checklist).not.toBeNull();
    // The same call, timed by the client and by the recorder within the same moment.
    expect(Math.abs(Number(checked?.[1]) - Number(footer?.[1]))).toBeLessThanOrEqual(1);
  });

  it('does not ask Slack again at each publish: one report serves the Homes until it is old', async () => {
    const asked = () => fakes.slack.callsTo('conversations.info').length;
    const before = asked();
    for (let i = 0; i < 3; i += 1) expect(checklistOf(await settings.home(app, ADMIN))).toBeDefined();
    await app.waitForIdle();
    expect(asked()).toBe(before);
  });

  it('joins presses to the check under way, and tells a press too soon after the last check', async () => {
    pastCooldown();
    const asked = () => fakes.slack.callsTo('auth.test').length;
    const before = asked();
    const home = fakes.slack.view(ADMIN);
    await Promise.all(
      [1, 2, 3, 4, 5].map(() => app.clickOnHome(home, SETUP_CHECKLIST.buttons.checkAgain.actionId, ADMIN)),
    );
    await app.waitForIdle();
    expect(asked()).toBe(before + 1); // five presses at once: one check
    const notes = () =>
      fakes.slack.calls
        .filter((c) => c.method.startsWith('chat.post') && textOf(c.params).includes(':hourglass:'))
        .map((c) => textOf(c.params));
    expect(notes().filter((n) => n.includes('already under way')).length).toBe(4);

    await app.clickOnHome(home, SETUP_CHECKLIST.buttons.checkAgain.actionId, ADMIN);
    await app.waitForIdle();
    expect(asked()).toBe(before + 1);
    expect(notes().at(-1)).toMatch(/The setup was checked \d+ s ago: press Check again in \d+ s\./);
  });

  it('checks again on the button, and says so once every check passes', async () => {
    pastCooldown();
    fakes.slack.channelsWithoutBot.delete(APPROVAL);
    const home = fakes.slack.view(ADMIN);
    await app.clickOnHome(home, SETUP_CHECKLIST.buttons.checkAgain.actionId, ADMIN);
    await fakes.slack.waitFor(() => !checklistOf(fakes.slack.view(ADMIN)), 10_000, 'a Home without the checklist');
    await app.waitForIdle();
    expect(textOf(fakes.slack.view(ADMIN))).toContain(':heavy_check_mark: *Setup complete*: every check passes');
    expect(textOf(await settings.home(app, ALICE))).not.toContain('Setup complete');
  });

  it('refuses the button to someone who is not a settings admin', async () => {
    fakes.slack.channelsWithoutBot.add(APPROVAL);
    const asked = fakes.slack.callsTo('conversations.info').length;
    await app.clickOnHome(withChecklist, SETUP_CHECKLIST.buttons.checkAgain.actionId, ALICE);
    await app.waitForIdle();
    expect(fakes.slack.callsTo('conversations.info').length).toBe(asked);
    const told = fakes.slack.calls.filter((c) => c.method.startsWith('chat.post') && textOf(c.params).includes(ALICE));
    expect(textOf(told.at(-1)?.params)).toContain('Only settings admins can check the setup.');
  });

  it('as its settings admin reads it: the failing checks, and Setup complete once all pass (golden screens)', async () => {
    fakes.slack.channelsWithoutBot.add(APPROVAL);
    fakes.slack.grantedScopes.delete('files:write');
    pastCooldown();
    await app.clickOnHome(withChecklist, SETUP_CHECKLIST.buttons.checkAgain.actionId, ADMIN);
    await fakes.slack.waitFor(
      () => checklistOf(fakes.slack.view(ADMIN))?.includes('files:write'),
      10_000,
      'the checklist with the missing scope',
    );
    await expectScreen('home/setup-checklist--failing', homeText(topOf(fakes.slack.view(ADMIN)), { viewer: ADMIN }));

    fakes.slack.channelsWithoutBot.delete(APPROVAL);
    fakes.slack.grantedScopes.add('files:write');
    pastCooldown();
    await app.clickOnHome(withChecklist, SETUP_CHECKLIST.buttons.checkAgain.actionId, ADMIN);
    await fakes.slack.waitFor(() => !checklistOf(fakes.slack.view(ADMIN)), 10_000, 'a Home without the checklist');
    await expectScreen('home/setup-checklist--all-pass', homeText(topOf(fakes.slack.view(ADMIN)), { viewer: ADMIN }));
  });

  it('checks again when the settings in force change, without a click', async () => {
    fakes.slack.unknownUsers.add('U0GONE001');
    const store = app.openStore();
    try {
      const at = new Date().toISOString();
      const approvers = { users: ['U0BEN0001', 'U0GONE001'], userGroups: [] };
      await store.workspaceSettingsRows.save(
        TEST_TEAM_ID,
        0,
        { approvers: { value: approvers, by: ADMIN, at } },
        ADMIN,
      );
    } finally {
      await store.close();
    }
    // Home is opened again (each replica reads the settings' version every second): the old report is stale.
    const deadline = Date.now() + 10_000;
    while (!checklistOf(fakes.slack.view(ADMIN))?.includes('is not found')) {
      if (Date.now() > deadline) throw new Error('the checklist never showed the approver who left');
      await settings.home(app, ADMIN);
      await app.waitForIdle(); // the check it started, and the refresh after it
      // In one process with the fake Slack, a Home opened is promises only: the poll's timer runs in between.
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(checklistOf(fakes.slack.view(ADMIN))).toContain(
      ':heavy_multiplication_x: Deletion approvers: <@U0GONE001> is not found (user_not_found)',
    );
  });
});

/** The top of a Home, down to its first divider after the flows: where the checklist is, when there is one. */
function topOf(home: SlackView): SlackView {
  const blocks = (home.blocks ?? []) as Array<Record<string, unknown>>;
  const flows = blocks.findIndex((b) => b.type === 'actions' && b.block_id === 'flows');
  return { ...home, blocks: blocks.slice(0, flows + 1) };
}
