import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LINK_BLOCKS } from '../../../src/capabilities/links/link-form.js';
import { ACCOUNT_BLOCKS, connectFormView } from '../../../src/capabilities/mint-account/connect-form.js';
import { CONNECT_MINT_ACCOUNT_ACTION } from '../../../src/tenancy/mint-accounts/not-connected.js';
import { MockMintService } from '../../../src/operator/mock-mint-api/mock-mint-service.js';
import { TEST_MINT_API_KEY } from '../../kit/app-process.js';
import { useFakes, useListenerApp } from '../../kit/fakes.js';
import { installInProcess, listenerOAuthApp } from '../../kit/listener-installs.js';
import type { ListenerApp } from '../../kit/listener-app.js';
import { KEY_A, KEY_B, useWorkspaces } from '../../tenancy/mint-accounts/workspace-flow.js';
import { textOf } from '../../kit/slack-checks.js';
import { TEST_TEAM_ID, TEST_USER_ID } from '../../kit/slack-ids.js';
import {
  eventCallback,
  globalShortcut,
  userContext,
  viewButtonClick,
  type SlackView,
} from '../../kit/slack-payloads.js';
import { DISTRIBUTION_ENV, OTHER_TEAM_ID, OTHER_USER_ID, uninstallPayload } from '../../kit/workspaces.js';
import { expectScreen, modalScreen } from '../../kit/screens.js';
import { queryRows } from '../../kit/raw-sql.js';
import { sqliteDatabase } from '../../kit/store-engines.js';
import { LINKS } from '../../../src/capabilities/links/actions.js';
import { MINT_ACCOUNT } from '../../../src/capabilities/mint-account/actions.js';

/** The base URL a workspace's Mint account was saved with. */
async function connectedBaseUrl(app: ListenerApp, teamId: string): Promise<unknown> {
  const [row] = await queryRows(
    app.env.DATABASE_URL ?? '',
    `select base_url from mint_accounts where team_id = '${teamId}'`,
  );
  return row?.base_url;
}

/** Installs workspace A, so administers its Mint account. */
const INSTALLER_A = TEST_USER_ID;
/** Installs workspace B. */
const INSTALLER_B = OTHER_USER_ID;
/** A workspace admin of A, as Slack reports (users.info). */
const ADMIN_A2 = 'U0ADMIN002';
/** Nobody in particular: not the installer, not an admin. */
const NOBODY = 'U0NOBODY01';

describe('each workspace connects its own Mint account (distribution mode)', () => {
  const fakes = useFakes();
  const flow = useWorkspaces(fakes);
  const { home, homeWhen, click, submit, connect, rows } = flow;
  beforeEach(() => fakes.slack.workspaceAdmins.add(ADMIN_A2));
  afterEach(() => fakes.slack.workspaceAdmins.clear());
  const interact = (payload: Record<string, unknown>, teamId: string) => flow.interact(payload, teamId);

  /** `/mintlink link` in a workspace, the form filled and submitted; resolves with the outcome modal. */
  async function createLink(nftId: string, userId = INSTALLER_A, teamId = TEST_TEAM_ID) {
    const { open, form } = await flow.formFromCommand('link', userId, teamId);
    expect(form.callback_id).toBe(LINKS.forms.create.callbackId);
    await submit(form, { [LINK_BLOCKS.nftId]: nftId }, userId, teamId);
    return { open, outcome: await fakes.slack.viewUpdate(form.id) };
  }

  /** Runs the "Create mint link" step in a workspace; resolves with how it ended. */
  const linkStep = (nftId: string, teamId = TEST_TEAM_ID, userId = INSTALLER_A) =>
    flow.step(LINKS.steps.createLink.callbackId, { nft_id: nftId, acting_user: userContext(userId) }, teamId);

  async function audit() {
    return rows(
      `select actor_id, team_id, operation, origin, inputs, outcome from audit_log where operation like 'mint_account.%' order by id`,
    );
  }

  it('connects in Home, and sends each workspace’s links to the Mint service with its own key', async () => {
    const tokenA = await installInProcess(flow.app, fakes.slack, { teamId: TEST_TEAM_ID, userId: INSTALLER_A }, null);
    const tokenB = await installInProcess(flow.app, fakes.slack, { teamId: OTHER_TEAM_ID, userId: INSTALLER_B }, null);

    // Before: the installer is asked to connect; anyone else is told whom to ask.
    expect(textOf(await home(INSTALLER_A))).toContain('*Mint account* · :electric_plug: not connected');
    const others = textOf(await home(NOBODY));
    expect(others).toContain(`Ask <@${INSTALLER_A}> (who installed it) or an admin of this workspace`);
    expect(others).not.toContain(CONNECT_MINT_ACCOUNT_ACTION);

    const connectedA = await connect(INSTALLER_A, `  ${KEY_A}\n`); // a paste with a space and a line break
    expect(textOf(connectedA)).toContain('*Mint account connected.*');
    expect(textOf(connectedA)).toContain('the key ending `1234`');
    const connectedB = await connect(INSTALLER_B, KEY_B, OTHER_TEAM_ID);
    expect(textOf(connectedB)).toContain('the key ending `5678`');
    // Each workspace's Homes are published with its own token.
    const homeTokens = (userId: string) =>
      new Set(
        fakes.slack
          .callsTo('views.publish')
          .filter((c) => c.params.user_id === userId)
          .map((c) => c.token),
      );
    expect(homeTokens(INSTALLER_A)).toEqual(new Set([tokenA]));
    expect(homeTokens(INSTALLER_B)).toEqual(new Set([tokenB]));
    const homeA = await homeWhen(INSTALLER_A, (text) => text.includes('Key ending `1234`'));
    expect(textOf(homeA)).toContain(`connected by <@${INSTALLER_A}>`);
    expect(textOf(homeA)).toContain(MINT_ACCOUNT.buttons.replace.actionId);

    const a = await createLink('nft-of-a');
    expect(a.open.token).toBe(tokenA);
    expect(textOf(a.outcome)).toContain('Mint link created');
    const b = await createLink('nft-of-b', INSTALLER_B, OTHER_TEAM_ID);
    expect(b.open.token).toBe(tokenB);
    expect(textOf(b.outcome)).toContain('Mint link created');
    expect(
      fakes.mint.requestsTo('create_link').map((r) => [(r.body as { nftId: string }).nftId, r.headers['x-api-key']]),
    ).toEqual([
      ['nft-of-a', KEY_A],
      ['nft-of-b', KEY_B],
    ]);

    expect(await audit()).toEqual([
      expect.objectContaining({ actor_id: INSTALLER_A, team_id: TEST_TEAM_ID, operation: 'mint_account.connect' }),
      expect.objectContaining({ actor_id: INSTALLER_B, team_id: OTHER_TEAM_ID, operation: 'mint_account.connect' }),
    ]);
  });

  it('answers a workspace without an account with how to connect, before any form, with a button for admins', async () => {
    await installInProcess(flow.app, fakes.slack, { teamId: TEST_TEAM_ID, userId: INSTALLER_A }, null);

    const { ack } = await flow.app.command('link');
    expect(ack?.response_type).toBe('ephemeral');
    expect(textOf(ack)).toContain('No Mint account is connected to this workspace yet');
    expect(textOf(ack)).toContain('*Mintlink* → *Home* → *Connect your Mint account*');
    expect(fakes.slack.callsTo('views.open')).toHaveLength(0); // no form to fill for nothing
    expect(textOf((await flow.app.command('wallet')).ack)).toContain('No Mint account is connected');
    expect(textOf((await flow.app.command('templates demo-contract')).ack)).toContain('No Mint account is connected');

    // The shortcut and the Home button open a modal that says so, with the button.
    await interact(globalShortcut(fakes.slack, LINKS.shortcuts.create.callbackId, NOBODY), TEST_TEAM_ID);
    const notice = await fakes.slack.waitFor(
      () => fakes.slack.callsTo('views.open')[0]?.params.view as Record<string, unknown>,
    );
    expect(textOf(notice)).toContain('No Mint account is connected');
    const fromHome = await click(await home(INSTALLER_A), LINKS.buttons.createFromHome.actionId, INSTALLER_A);
    expect(fromHome?.callback_id).toBeUndefined();
    expect(textOf(fromHome)).toContain(CONNECT_MINT_ACCOUNT_ACTION);

    // The button, for the installer, pushes the connect form over that modal.
    if (!fromHome) throw new Error('no modal');
    await click(fromHome, CONNECT_MINT_ACCOUNT_ACTION, INSTALLER_A);
    const pushed = await fakes.slack.waitForCall('views.push');
    expect((pushed.params.view as { callback_id: string }).callback_id).toBe(MINT_ACCOUNT.forms.connect.callbackId);

    // The same button in the command's answer, for someone else: refused, saying who can.
    const answer = (await flow.app.command('link', { user_id: NOBODY })).ack ?? {};
    const url = await flow.app.click(answer, CONNECT_MINT_ACCOUNT_ACTION, NOBODY);
    const [told] = await fakes.slack.waitForResponse(url);
    expect(textOf(told?.body)).toContain(`Only the person who installed Mintlink (<@${INSTALLER_A}>) and the admins`);

    // A workflow step fails with how to connect, in plain text.
    const step = await linkStep('nft-1');
    expect(step.state).toBe('failed');
    expect(step.error).toContain('No Mint account is connected to this Slack workspace yet');
    expect(step.error).not.toContain('*');
    expect(fakes.mint.requests).toHaveLength(0);
    expect(await audit()).toEqual([
      expect.objectContaining({ actor_id: NOBODY, operation: 'mint_account.connect', outcome: 'refused' }),
    ]);
  });

  it('checks the key inline, never sending it back', async () => {
    await installInProcess(flow.app, fakes.slack, { teamId: TEST_TEAM_ID, userId: INSTALLER_A }, null);
    const form = await click(await home(INSTALLER_A), CONNECT_MINT_ACCOUNT_ACTION, INSTALLER_A);
    if (!form) throw new Error('no form');
    const tooLong = `${KEY_A}${'x'.repeat(300)}`;
    for (const [typed, problem] of [
      ['   ', 'Enter the API key'],
      [`${KEY_A} ${KEY_B}`, 'no spaces or line breaks'],
      [tooLong, `is ${tooLong.length} characters long`],
    ] as const) {
      const ack = await submit(form, { [ACCOUNT_BLOCKS.apiKey]: typed }, INSTALLER_A);
      expect(ack).toEqual({
        response_action: 'errors',
        errors: { [ACCOUNT_BLOCKS.apiKey]: expect.stringContaining(problem) },
      });
      expect(JSON.stringify(ack)).not.toContain(KEY_A);
    }
    expect(await rows('select team_id from mint_accounts')).toEqual([]);
    // The form itself never carries a key, nor does the one for replacing it.
    expect(textOf(form)).not.toContain('initial_value');
  });

  it('shows a key the service refuses to the admins in Home, and clears it once the service takes it', async () => {
    fakes.mint.reset(); // KEY_A unknown to the service for now
    await installInProcess(flow.app, fakes.slack, { teamId: TEST_TEAM_ID, userId: INSTALLER_A }, null);
    await home(ADMIN_A2);
    await home(NOBODY);
    await connect(INSTALLER_A, KEY_A);

    const { outcome } = await createLink('nft-refused');
    expect(textOf(outcome)).toContain("refused the app's credentials (HTTP 401)");
    expect(textOf(outcome)).toContain('An admin of this workspace can replace the Mint API key in Mintlink’s App Home');
    for (const admin of [INSTALLER_A, ADMIN_A2]) {
      const shown = textOf(await homeWhen(admin, (text) => text.includes('refused this key')));
      expect(shown).toContain(':warning: *The Mint service refused this key* (HTTP 401)');
      expect(shown).toContain('*Mint account* · :warning: key refused');
    }
    expect(textOf(fakes.slack.view(NOBODY))).not.toContain('refused this key');
    expect((await rows('select refused_status from mint_accounts'))[0]?.refused_status).toBe(401);

    fakes.mint.acceptKey(KEY_A);
    expect(textOf((await createLink('nft-accepted')).outcome)).toContain('Mint link created');
    await homeWhen(
      INSTALLER_A,
      (text) => !text.includes('refused this key') && text.includes(':white_check_mark: connected'),
    );
    expect((await rows('select refused_at from mint_accounts'))[0]?.refused_at).toBeNull();
  });

  it('replaces and removes the key, audited with its last four characters, refreshing the other admins’ Homes', async () => {
    await installInProcess(flow.app, fakes.slack, { teamId: TEST_TEAM_ID, userId: INSTALLER_A }, null);
    await home(ADMIN_A2);
    await connect(INSTALLER_A, KEY_A);
    await homeWhen(ADMIN_A2, (text) => text.includes('Key ending `1234`'));

    const form = await click(await home(INSTALLER_A), MINT_ACCOUNT.buttons.replace.actionId, INSTALLER_A);
    if (!form) throw new Error('no form');
    expect(textOf(form)).toContain('Replace Mint API key');
    expect(textOf(form)).toContain('The key ending `1234` is replaced as soon as you save');
    await submit(form, { [ACCOUNT_BLOCKS.apiKey]: KEY_B }, INSTALLER_A);
    expect(textOf(await fakes.slack.viewUpdate(form.id))).toContain(
      'The key ending `5678` replaces the key ending `1234`',
    );
    await homeWhen(ADMIN_A2, (text) => text.includes('Key ending `5678`'));
    await createLink('nft-new-key');
    expect(fakes.mint.requestsTo('create_link').map((r) => r.headers['x-api-key'])).toEqual([KEY_B]);

    // Remove, by the other admin (Slack asks them to confirm first).
    const adminHome = fakes.slack.view(ADMIN_A2);
    expect(JSON.stringify(adminHome)).toContain('"confirm":{"title"');
    await click(adminHome, MINT_ACCOUNT.buttons.remove.actionId, ADMIN_A2);
    await homeWhen(INSTALLER_A, (text) => text.includes('not connected'));
    await homeWhen(ADMIN_A2, (text) => text.includes('not connected'));
    expect(textOf((await flow.app.command('link')).ack)).toContain('No Mint account is connected');

    expect((await audit()).map((e) => [e.actor_id, e.operation, JSON.parse(String(e.inputs)), e.outcome])).toEqual([
      [INSTALLER_A, 'mint_account.connect', { keyLast4: '1234' }, 'succeeded'],
      [INSTALLER_A, 'mint_account.replace', { keyLast4: '5678', previousKeyLast4: '1234' }, 'succeeded'],
      [ADMIN_A2, 'mint_account.remove', { keyLast4: '5678' }, 'succeeded'],
    ]);
  });

  it('refuses and audits forged clicks and submissions from people who are not admins, in any workspace', async () => {
    await installInProcess(flow.app, fakes.slack, { teamId: TEST_TEAM_ID, userId: INSTALLER_A }, null);
    await installInProcess(flow.app, fakes.slack, { teamId: OTHER_TEAM_ID, userId: INSTALLER_B }, null);
    await connect(INSTALLER_A, KEY_A);
    const forgedHome: SlackView = {
      id: 'V0FORGEDHOME',
      type: 'home',
      blocks: [
        {
          type: 'actions',
          block_id: 'forged',
          elements: [
            CONNECT_MINT_ACCOUNT_ACTION,
            MINT_ACCOUNT.buttons.replace.actionId,
            MINT_ACCOUNT.buttons.remove.actionId,
          ].map((id) => ({
            type: 'button',
            action_id: id,
          })),
        },
      ],
    };
    expect(await click(forgedHome, MINT_ACCOUNT.buttons.replace.actionId, NOBODY)).toBeUndefined();
    await click(forgedHome, MINT_ACCOUNT.buttons.remove.actionId, NOBODY);
    const forgedForm = {
      ...connectFormView({ current: undefined, baseUrl: undefined }),
      id: 'V0FORGEDFORM',
    } as SlackView;
    const ack = await submit(forgedForm, { [ACCOUNT_BLOCKS.apiKey]: 'forged-key-0123456789' }, NOBODY);
    expect(textOf(ack)).toContain('Only the person who installed Mintlink');
    const dms = fakes.slack.callsTo('chat.postMessage').filter((c) => c.params.channel === NOBODY);
    expect(dms.map((c) => textOf(c.params.text))).toEqual([
      expect.stringContaining('Only the person who installed Mintlink'),
      expect.stringContaining('Only the person who installed Mintlink'),
    ]);

    // B's installer administers B, never A: the same submission signed for B connects B's account only.
    await submit(forgedForm, { [ACCOUNT_BLOCKS.apiKey]: KEY_B }, INSTALLER_B, OTHER_TEAM_ID);
    await flow.app.waitForIdle(); // the key is checked with the service and saved after the ack
    expect(await rows('select team_id, key_last4, connected_by from mint_accounts order by team_id')).toEqual([
      { team_id: OTHER_TEAM_ID, key_last4: '5678', connected_by: INSTALLER_B },
      { team_id: TEST_TEAM_ID, key_last4: '1234', connected_by: INSTALLER_A },
    ]);
    expect((await audit()).map((e) => [e.actor_id, e.team_id, e.operation, e.outcome])).toEqual([
      [INSTALLER_A, TEST_TEAM_ID, 'mint_account.connect', 'succeeded'],
      [NOBODY, TEST_TEAM_ID, 'mint_account.replace', 'refused'],
      [NOBODY, TEST_TEAM_ID, 'mint_account.remove', 'refused'],
      [NOBODY, TEST_TEAM_ID, 'mint_account.replace', 'refused'],
      [INSTALLER_B, OTHER_TEAM_ID, 'mint_account.connect', 'succeeded'],
    ]);
    expect(JSON.stringify(await audit())).not.toContain('forged-key-0123456789');
  });

  it('keeps the circuit breaker and the service’s requests to wait per key', async () => {
    await installInProcess(flow.app, fakes.slack, { teamId: TEST_TEAM_ID, userId: INSTALLER_A }, null);
    await installInProcess(flow.app, fakes.slack, { teamId: OTHER_TEAM_ID, userId: INSTALLER_B }, null);
    await connect(INSTALLER_A, KEY_A);
    await connect(INSTALLER_B, KEY_B, OTHER_TEAM_ID);

    // A's service fails five times in a row: A's circuit opens, B goes on.
    fakes.mint.failNext('create_link', { mode: 'status', status: 503 }, 5, KEY_A);
    for (let i = 0; i < 5; i += 1) expect((await linkStep(`nft-a-${i}`)).error).toContain('HTTP 503');
    const sent = fakes.mint.requests.length;
    expect((await linkStep('nft-a-held')).error).toContain('has been failing');
    expect(fakes.mint.requests).toHaveLength(sent); // not sent
    expect((await linkStep('nft-b-1', OTHER_TEAM_ID, INSTALLER_B)).state).toBe('completed');

    // B's service asks B to wait: B's next call waits, A's circuit alone decides for A.
    fakes.mint.failNext('create_link', { mode: 'status', status: 429, headers: { 'retry-after': '120' } }, 1, KEY_B);
    expect((await linkStep('nft-b-2', OTHER_TEAM_ID, INSTALLER_B)).error).toContain('too many requests');
    const before = fakes.mint.requests.length;
    expect((await linkStep('nft-b-3', OTHER_TEAM_ID, INSTALLER_B)).error).toContain('Try again in 2 minutes');
    expect(fakes.mint.requests).toHaveLength(before);
    expect(fakes.mint.requestsTo('create_link').filter((r) => r.headers['x-api-key'] === KEY_B)).toHaveLength(2);
  });

  it('deletes the workspace’s key when it removes the app, and starts afresh on a reinstall', async () => {
    await installInProcess(flow.app, fakes.slack, { teamId: TEST_TEAM_ID, userId: INSTALLER_A }, null);
    await installInProcess(flow.app, fakes.slack, { teamId: OTHER_TEAM_ID, userId: INSTALLER_B }, null);
    await connect(INSTALLER_A, KEY_A);
    await connect(INSTALLER_B, KEY_B, OTHER_TEAM_ID);
    await createLink('nft-before-uninstall');
    await createLink('nft-b-before', INSTALLER_B, OTHER_TEAM_ID);
    const recorded = async () => (await rows('select account from mint_call_outcomes order by account')).length === 2;
    for (const deadline = Date.now() + 5_000; !(await recorded()) && Date.now() < deadline;)
      await new Promise((resolve) => setTimeout(resolve, 50)); // the recorder writes after the call ends
    expect(await recorded()).toBe(true);

    await flow.app.deliverEvent(uninstallPayload(TEST_TEAM_ID));
    await flow.app.waitForLog((line) => line.msg === 'the app was removed from a workspace: its work is stopped');
    expect(flow.app.logLines.some((l) => l.msg === 'the workspace removed the app: its Mint API key is deleted')).toBe(
      true,
    );
    expect(await rows('select team_id from mint_accounts')).toEqual([{ team_id: OTHER_TEAM_ID }]);
    expect(await rows('select account from mint_call_outcomes')).toEqual([{ account: OTHER_TEAM_ID }]);
    expect((await audit()).at(-1)).toMatchObject({
      actor_id: 'system',
      team_id: TEST_TEAM_ID,
      operation: 'mint_account.remove',
      origin: 'app uninstalled',
    });

    await installInProcess(flow.app, fakes.slack, { teamId: TEST_TEAM_ID, userId: INSTALLER_A }, null);
    expect(textOf(await home(INSTALLER_A))).toContain('not connected');
    expect(textOf((await flow.app.command('link')).ack)).toContain('No Mint account is connected');
    expect(textOf((await createLink('nft-b', INSTALLER_B, OTHER_TEAM_ID)).outcome)).toContain('Mint link created');
  });
});

/** The names the next tests type, as their DNS resolves them (no test needs DNS). */
const OWN_DNS: Record<string, string> = { 'mint.acme.example': '10.0.0.5' };

describe('a workspace’s own Mint service address, when the operator allows one', () => {
  const fakes = useFakes();
  const regional = new MockMintService({ apiKey: KEY_A });
  let app: ListenerApp;
  beforeAll(async () => regional.listen());
  afterAll(async () => regional.close());
  beforeEach(async () => {
    regional.reset();
    // The operator's own service is the regional one: on this host, only its origin may be named by a workspace.
    app = await fakes.startListenerApp({
      mintUrl: regional.url,
      env: { ...DISTRIBUTION_ENV, DATABASE_URL: sqliteDatabase().databaseUrl, MINT_API_BASE_URL_PER_WORKSPACE: 'true' },
      resolveHost: async (hostname) => {
        const address = OWN_DNS[hostname];
        if (!address) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
        return [{ address, family: 4 }];
      },
    });
    fakes.slack.oauthApp = listenerOAuthApp();
  });
  afterEach(async () => app.stop());

  it('asks for it in the form, checks it inline, and sends the workspace’s calls there', async () => {
    await installInProcess(app, fakes.slack, { teamId: TEST_TEAM_ID, userId: INSTALLER_A }, null);
    const homeOpened = eventCallback({ type: 'app_home_opened', user: INSTALLER_A, channel: 'D0HOME', tab: 'home' });
    await app.deliverEvent(homeOpened);
    await fakes.slack.waitForCall('views.publish');
    await app.interact(viewButtonClick(fakes.slack, fakes.slack.view(INSTALLER_A), CONNECT_MINT_ACCOUNT_ACTION, {}));
    await fakes.slack.waitForCall('views.open');
    const form = fakes.slack.lastOpenedView();
    expect(textOf(form)).toContain(`Empty: ${regional.url}`);

    const wrong = await app.submitView(form, {
      [ACCOUNT_BLOCKS.apiKey]: KEY_A,
      [ACCOUNT_BLOCKS.baseUrl]: 'http://169.254.169.254/latest',
    });
    expect(wrong).toEqual({
      response_action: 'errors',
      errors: { [ACCOUNT_BLOCKS.baseUrl]: expect.stringContaining('169.254.169.254 is a link-local address') },
    });
    // Another port of this host (a sidecar's admin API, say) is not the operator's service.
    const elsewhere = await app.submitView(form, {
      [ACCOUNT_BLOCKS.apiKey]: KEY_A,
      [ACCOUNT_BLOCKS.baseUrl]: fakes.mint.url,
    });
    expect(elsewhere).toEqual({
      response_action: 'errors',
      errors: { [ACCOUNT_BLOCKS.baseUrl]: expect.stringContaining('127.0.0.1 is an address of this very host') },
    });
    // A name is looked up when saved: one that leads to a private network is refused inline, naming why.
    const hidden = await app.submitView(form, {
      [ACCOUNT_BLOCKS.apiKey]: KEY_A,
      [ACCOUNT_BLOCKS.baseUrl]: 'https://mint.acme.example/api',
    });
    fakes.slack.applySubmissionAck(form.id, hidden);
    await expectScreen('mint-account/connect-form--private-address', modalScreen(fakes.slack, form.id));
    expect(
      await app.submitView(form, {
        [ACCOUNT_BLOCKS.apiKey]: KEY_A,
        [ACCOUNT_BLOCKS.baseUrl]: 'https://nowhere.acme.example',
      }),
    ).toEqual({
      response_action: 'errors',
      errors: {
        [ACCOUNT_BLOCKS.baseUrl]: 'nowhere.acme.example has no address on the internet: check how it is spelled.',
      },
    });
    await app.submitView(form, { [ACCOUNT_BLOCKS.apiKey]: KEY_A, [ACCOUNT_BLOCKS.baseUrl]: `${regional.url}/` });
    await app.waitForIdle(); // the key is checked with the service and saved after the ack
    expect(await connectedBaseUrl(app, TEST_TEAM_ID)).toBe(regional.url);
    expect(textOf(await fakes.slack.viewUpdate(form.id))).toContain('Mint account connected');

    const { fields } = await app.command('link');
    await fakes.slack.waitForCall('views.open', (c) => c.params.trigger_id === fields.trigger_id);
    const linkForm = fakes.slack.lastOpenedView();
    await app.submitView(linkForm, { [LINK_BLOCKS.nftId]: 'nft-regional' });
    expect(textOf(await fakes.slack.viewUpdate(linkForm.id))).toContain('Mint link created');
    expect(regional.requestsTo('create_link').map((r) => r.headers['x-api-key'])).toEqual([KEY_A]);
    expect(fakes.mint.requests).toHaveLength(0);
    expect(app.logs).not.toContain(KEY_A);
  });
});

describe('single-workspace mode: the operator’s MINT_API_KEY is the account', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes, { env: { SETTINGS_ADMINS: ADMIN_A2 } });

  it('shows no Mint account section on Home, and refuses a forged connect with where the account comes from', async () => {
    await running.app.event({ type: 'app_home_opened', user: ADMIN_A2, channel: 'D0HOME', tab: 'home' });
    await fakes.slack.waitForCall('views.publish');
    const shown = textOf(fakes.slack.view(ADMIN_A2));
    expect(shown).toContain('Settings'); // a settings admin's Home...
    expect(shown).not.toContain('Mint account'); // ...with nothing to connect
    const forged: SlackView = {
      id: 'V0FORGEDHOME',
      type: 'home',
      blocks: [
        {
          type: 'actions',
          block_id: 'forged',
          elements: [{ type: 'button', action_id: CONNECT_MINT_ACCOUNT_ACTION }],
        },
      ],
    };
    await running.app.clickOnHome(forged, CONNECT_MINT_ACCOUNT_ACTION, ADMIN_A2);
    const dm = await fakes.slack.waitForCall('chat.postMessage', (c) => c.params.channel === ADMIN_A2);
    expect(dm.params.text).toContain('uses the Mint account its operator set up (MINT_API_KEY)');
    expect(fakes.slack.callsTo('views.open')).toHaveLength(0);

    const { outcome } = await running.app.submitFormFromCommand('link', { [LINK_BLOCKS.nftId]: 'nft-single' });
    expect(textOf(outcome)).toContain('Mint link created');
    expect(fakes.mint.requestsTo('create_link')[0]?.headers['x-api-key']).toBe(TEST_MINT_API_KEY);
  });
});
