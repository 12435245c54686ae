import { describe, it } from 'vitest';
import { ACCOUNT_BLOCKS } from '../../../src/capabilities/mint-account/connect-form.js';
import { CONNECT_MINT_ACCOUNT_ACTION } from '../../../src/tenancy/mint-accounts/not-connected.js';
import { useFakes } from '../../kit/fakes.js';
import { installInProcess } from '../../kit/listener-installs.js';
import { confirmText, ephemeralText, modalText } from '../../kit/screen-text.js';
import { expectScreen, modalScreen } from '../../kit/screens.js';
import { TEST_TEAM_ID, TEST_USER_ID } from '../../kit/slack-ids.js';
import { globalShortcut } from '../../kit/slack-payloads.js';
import { KEY_A, KEY_B, useWorkspaces } from '../../tenancy/mint-accounts/workspace-flow.js';
import { MINT_ACCOUNT } from '../../../src/capabilities/mint-account/actions.js';
import { LINKS } from '../../../src/capabilities/links/actions.js';

/*
 * The Mint account modals of a workspace in distribution mode (each workspace connects its own account):
 * connect, replace, remove, as the installer (Alice) sees them, and the refusals before one is connected.
 */

const INSTALLER = TEST_USER_ID;
const NOBODY = 'U0EVE0001';
const viewOf = (ack: Record<string, unknown> | undefined) => (ack as { view: Record<string, unknown> }).view;

describe('Mint account screens', () => {
  const fakes = useFakes();
  const flow = useWorkspaces(fakes);

  it('not connected yet: the command, the shortcut and the connect button for someone who may not', async () => {
    await installInProcess(flow.app, fakes.slack, { teamId: TEST_TEAM_ID, userId: INSTALLER }, null);
    const { ack } = await flow.command('link', NOBODY);
    await expectScreen('mint-account/command--not-connected', ephemeralText(ack ?? {}, { viewer: NOBODY }));

    await flow.interact(globalShortcut(fakes.slack, LINKS.shortcuts.create.callbackId, NOBODY));
    const notice = await fakes.slack.waitForCall('views.open');
    await expectScreen(
      'mint-account/shortcut-modal--not-connected',
      modalText(notice.params.view as Record<string, unknown>, { viewer: NOBODY }),
    );

    const url = await flow.app.click(ack ?? {}, CONNECT_MINT_ACCOUNT_ACTION, NOBODY);
    const [told] = await fakes.slack.waitForResponse(url);
    await expectScreen('mint-account/connect-click--not-allowed', ephemeralText(told?.body ?? {}, { viewer: NOBODY }));
  });

  it('connect: the form, inline errors, connected', async () => {
    await installInProcess(flow.app, fakes.slack, { teamId: TEST_TEAM_ID, userId: INSTALLER }, null);
    const form = await flow.click(await flow.home(INSTALLER), CONNECT_MINT_ACCOUNT_ACTION, INSTALLER);
    if (!form) throw new Error('the connect form did not open');
    await expectScreen('mint-account/connect-form--empty', modalText(form));
    await flow.submit(form, { [ACCOUNT_BLOCKS.apiKey]: `${KEY_A} ${KEY_B}` }, INSTALLER);
    await expectScreen('mint-account/connect-form--errors', modalScreen(fakes.slack, form.id));
    const ack = await flow.submit(form, { [ACCOUNT_BLOCKS.apiKey]: KEY_A }, INSTALLER);
    await expectScreen('mint-account/connect-modal--working', modalText(viewOf(ack)));
    await fakes.slack.viewUpdate(form.id);
    await expectScreen('mint-account/connect-modal--connected', modalScreen(fakes.slack, form.id));
  });

  it('replace the key, and the dialog before removing it', async () => {
    await installInProcess(flow.app, fakes.slack, { teamId: TEST_TEAM_ID, userId: INSTALLER }, null);
    await flow.connect(INSTALLER, KEY_A);
    const home = await flow.homeWhen(INSTALLER, (text) => text.includes(MINT_ACCOUNT.buttons.replace.actionId));
    const form = await flow.click(home, MINT_ACCOUNT.buttons.replace.actionId, INSTALLER);
    if (!form) throw new Error('the replace form did not open');
    await expectScreen('mint-account/replace-form--empty', modalText(form));
    await flow.submit(form, { [ACCOUNT_BLOCKS.apiKey]: KEY_B }, INSTALLER);
    await fakes.slack.viewUpdate(form.id);
    await expectScreen('mint-account/replace-modal--replaced', modalScreen(fakes.slack, form.id));

    const remove = (home.blocks as Array<Record<string, any>>)
      .flatMap((b) => (b.elements ?? (b.accessory ? [b.accessory] : [])) as Array<Record<string, any>>)
      .find((e) => e.action_id === MINT_ACCOUNT.buttons.remove.actionId);
    await expectScreen('mint-account/remove-dialog--open', confirmText(remove?.confirm ?? {}));
  });
});
