/*
 * Settings over each transport, end to end: Change settings on App Home, the form, the save and its inline
 * answer. Every behaviour of the settings is in settings.test.ts and the files beside it.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FIELDS } from '../../../src/capabilities/settings/settings-form.js';
import { useFakes } from '../../kit/fakes.js';
import type { RunningApp } from '../../kit/running-app.js';
import { SettingsFlow } from '../../kit/settings-flow.js';
import { expectNoRejectedSlackCalls, expectNoSecretsLeaked, textOf } from '../../kit/slack-checks.js';
import { SETTINGS } from '../../../src/capabilities/settings/actions.js';

const ADMIN = 'U0ADMIN01'; // a settings admin (SETTINGS_ADMINS)
const ALICE = 'U0ALICE01'; // administers nothing
const ENV = { APPROVAL_CHANNEL_ID: 'C0APPROVE', DELETION_APPROVERS: 'U0BOB0001', SETTINGS_ADMINS: ADMIN };

describe.each(['http', 'socket'] as const)('settings administered from App Home (%s mode)', (mode) => {
  const fakes = useFakes();
  const settings = new SettingsFlow(fakes);
  let app: RunningApp;

  beforeAll(async () => {
    app = await fakes.startApp(mode, { env: ENV });
  });
  afterAll(async () => {
    expectNoSecretsLeaked(fakes.slack, app);
    await app?.stop();
  });
  afterEach(() => expectNoRejectedSlackCalls(fakes.slack));

  it('an admin opens the form from Home and saves a change; a non-admin sees no Settings', async () => {
    expect(JSON.stringify(await settings.home(app, ALICE))).not.toContain(SETTINGS.buttons.open.actionId);
    const form = await settings.open(app, ADMIN, await settings.home(app, ADMIN));
    expect(form.callback_id).toBe(SETTINGS.forms.save.callbackId);
    const ack = await settings.save(app, form, { [FIELDS.ttlHours]: '10' }, ADMIN);
    expect(ack).toMatchObject({ response_action: 'update' });
    expect(textOf(ack)).toContain('*Saved.*');
    expect((await settings.stored(app))?.settings.requestTtlHours?.value).toBe(10);
  });
});
