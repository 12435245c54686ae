import { describe, expect, it } from 'vitest';
import { EXPORT_BLOCKS as B } from '../../../src/capabilities/audit-export/export-form.js';
import { useFakes, useListenerApp } from '../../kit/fakes.js';
import { ephemeralText, messageText, modalText } from '../../kit/screen-text.js';
import { expectScreen, modalScreen } from '../../kit/screens.js';
import { SettingsFlow, forgedHome } from '../../kit/settings-flow.js';
import { textOf } from '../../kit/slack-checks.js';
import { AUDIT_EXPORT } from '../../../src/capabilities/audit-export/actions.js';

/* The "Export audit log" modal in each state, as the audit viewer (Dan) sees it, and as Eve (no rights) does. */

const DAN = 'U0DAN0001';
const EVE = 'U0EVE0001';

describe('audit export form screens', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes, {
    env: { APPROVAL_CHANNEL_ID: 'C0APPROVE1', DELETION_APPROVERS: 'U0BEN0001,U0CHLOE01', AUDIT_VIEWERS: DAN },
  });
  const homes = new SettingsFlow(fakes);
  const viewOf = (ack: Record<string, unknown> | undefined) => (ack as { view: Record<string, unknown> }).view;

  /** `user` clicks Export audit log: on their Home, or on a Home from before they lost the right (`stale`). */
  async function openForm(user: string, stale = false) {
    const home = await homes.home(running.app, user);
    expect(textOf(home).includes('Export audit log')).toBe(!stale);
    const opened = fakes.slack.callsTo('views.open').length;
    await running.app.clickOnHome(
      stale ? forgedHome(AUDIT_EXPORT.buttons.exportFromHome.actionId) : home,
      AUDIT_EXPORT.buttons.exportFromHome.actionId,
      user,
    );
    await fakes.slack.waitFor(() => fakes.slack.callsTo('views.open').length > opened, 3_000, 'the export form');
    return fakes.slack.lastOpenedView();
  }

  it('the form: empty, with inline errors, working', async () => {
    const view = await openForm(DAN);
    await expectScreen('audit-export/export-form--empty', modalText(view, { viewer: DAN }));
    await running.app.submitView(view, { [B.days]: '0', [B.operation]: 'no such!' }, DAN);
    await expectScreen('audit-export/export-form--errors', modalScreen(fakes.slack, view.id, { viewer: DAN }));
    const ack = await running.app.submitView(view, { [B.days]: '30', [B.operation]: 'link.create' }, DAN);
    await expectScreen('audit-export/export-modal--working', modalText(viewOf(ack), { viewer: DAN }));
    // Nothing to export in a fresh workspace: the DM says so.
    const told = await fakes.slack.waitForCall('chat.postMessage', (c) => c.params.channel === DAN, 10_000);
    await expectScreen(
      'audit-export/export-dm--nothing-to-export',
      messageText(told.params, { where: 'DM', viewer: DAN }),
    );
    // An operation the log holds (the export above), but none by that person: the reason alone, no name advice.
    const again = await openForm(DAN);
    await running.app.submitView(again, { [B.days]: '30', [B.operation]: 'audit.export', [B.user]: EVE }, DAN);
    const toldAgain = await fakes.slack.waitForCall(
      'chat.postMessage',
      (c) => c.params.channel === DAN && c !== told,
      10_000,
    );
    await expectScreen(
      'audit-export/export-dm--nothing-by-that-person',
      messageText(toldAgain.params, { where: 'DM', viewer: DAN }),
    );
  });

  it('failed: Slack refused the file', async () => {
    fakes.slack.answerNext('files.getUploadURLExternal', { body: { ok: false, error: 'internal_error' } });
    const view = await openForm(DAN);
    await running.app.submitView(view, { [B.days]: '7' }, DAN);
    const told = await fakes.slack.waitForCall(
      'chat.postMessage',
      (c) => c.params.channel === DAN && JSON.stringify(c.params).includes('internal_error'),
      10_000,
    );
    await expectScreen('audit-export/export-dm--failed', messageText(told.params, { where: 'DM', viewer: DAN }));
  });

  it('refused to someone who is not an audit viewer: from Home and from the command', async () => {
    const view = await openForm(EVE, true);
    await expectScreen('audit-export/export-modal--not-allowed', modalText(view, { viewer: EVE }));
    const { ack } = await running.app.command('audit', { user_id: EVE });
    await expectScreen('audit-export/audit-command--not-allowed', ephemeralText(ack ?? {}, { viewer: EVE }));
  });
});
