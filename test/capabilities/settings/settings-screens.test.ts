import { beforeAll, describe, it } from 'vitest';
import { FIELDS } from '../../../src/capabilities/settings/settings-form.js';
import { USER_GROUPS } from '../../../sandbox/src/people.js';
import { useListenerApp, useFakes, type Fakes } from '../../kit/fakes.js';
import { modalText } from '../../kit/screen-text.js';
import { expectScreen, modalScreen } from '../../kit/screens.js';
import { SettingsFlow, forgedHome } from '../../kit/settings-flow.js';

/*
 * The Settings modal in each state, as the sandbox's settings admin (Dan) sees it, and as someone who is not
 * one (Eve) meets it.
 */

const DAN = 'U0DAN0001';
const EVE = 'U0EVE0001';
const SANDBOX_ENV = {
  APPROVAL_CHANNEL_ID: 'C0APPROVE1',
  DELETION_APPROVERS: 'U0BEN0001,U0CHLOE01',
  DELETION_QUORUM: '2',
  AUDIT_VIEWERS: DAN,
  SETTINGS_ADMINS: DAN,
};

/** The sandbox's user groups, as Slack lists them. */
function withUserGroups(fakes: Fakes): void {
  beforeAll(() => {
    for (const group of USER_GROUPS) {
      fakes.slack.userGroups.set(group.id, [...group.members]);
      fakes.slack.userGroupNames.set(group.id, { handle: group.handle, name: group.name });
    }
  });
}

describe('settings screens', () => {
  const fakes = useFakes();
  withUserGroups(fakes);
  const running = useListenerApp(fakes, { env: SANDBOX_ENV });
  const settings = new SettingsFlow(fakes);

  it('the form: as configured, with inline errors, saved, changed meanwhile', async () => {
    const home = await settings.home(running.app, DAN);
    const form = await settings.open(running.app, DAN, home);
    await expectScreen('settings/settings-form--open', modalText(form, { viewer: DAN }));

    fakes.slack.channelsWithoutBot.add('C0CHANNEL1');
    try {
      await settings.save(
        running.app,
        form,
        {
          [FIELDS.quorum]: '3',
          [FIELDS.channel]: 'C0CHANNEL1',
          [FIELDS.largeQuorum]: '4',
          [FIELDS.remindHours]: '0.1',
        },
        DAN,
      );
      await expectScreen('settings/settings-form--errors', modalScreen(fakes.slack, form.id, { viewer: DAN }));
      // Slack's errors (approvers too few, a channel without the app) came with the others at once; once those
      // are fixed, Slack's remain.
      await settings.save(running.app, form, { [FIELDS.quorum]: '3', [FIELDS.channel]: 'C0CHANNEL1' }, DAN);
      await expectScreen('settings/settings-form--unreachable', modalScreen(fakes.slack, form.id, { viewer: DAN }));
    } finally {
      fakes.slack.channelsWithoutBot.delete('C0CHANNEL1');
    }

    const stale = await settings.open(running.app, DAN, home);
    const saved = await settings.save(running.app, form, { [FIELDS.ttlHours]: '48', [FIELDS.quorum]: '1' }, DAN);
    await expectScreen('settings/settings-modal--saved', modalText(viewOf(saved), { viewer: DAN }));
    const meanwhile = await settings.save(running.app, stale, { [FIELDS.ttlHours]: '12' }, DAN);
    await expectScreen('settings/settings-form--changed-meanwhile', modalText(viewOf(meanwhile), { viewer: DAN }));
  });

  it('someone who is not a settings admin', async () => {
    const refused = await settings.open(running.app, EVE, forgedHome());
    await expectScreen('settings/settings-modal--not-allowed', modalText(refused, { viewer: EVE }));
  });
});

describe('settings screens when the operator keeps them in the environment', () => {
  const fakes = useFakes();
  withUserGroups(fakes);
  const running = useListenerApp(fakes, { env: { ...SANDBOX_ENV, SETTINGS_SOURCE: 'env' } });
  const settings = new SettingsFlow(fakes);

  it('shows them read-only', async () => {
    const form = await settings.open(running.app, DAN, await settings.home(running.app, DAN));
    await expectScreen('settings/settings-modal--read-only', modalText(form, { viewer: DAN }));
  });
});

const viewOf = (ack: Record<string, unknown> | undefined) => (ack as { view: Record<string, unknown> }).view;
