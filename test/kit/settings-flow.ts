import { SETTINGS } from '../../src/capabilities/settings/actions.js';
import { type Field, blockId, versionOf } from '../../src/capabilities/settings/settings-form.js';
import type { Fakes } from './fakes.js';
import type { SlackDriver } from './slack-driver.js';
import type { SlackView } from './slack-payloads.js';
import { TEST_TEAM_ID } from './slack-ids.js';
import type { Entry } from './view-state.js';

/** The settings flow driven as an admin would: Home, the Change settings button, the form. */
export class SettingsFlow {
  constructor(readonly fakes: Fakes) {}

  /** `user` opens their Home; resolves with it once published. */
  async home(app: SlackDriver, user: string): Promise<SlackView> {
    const published = () => this.fakes.slack.callsTo('views.publish').filter((c) => c.params.user_id === user).length;
    const before = published();
    await app.event({ type: 'app_home_opened', user, channel: `D${user.slice(1)}`, tab: 'home' });
    await this.fakes.slack.waitFor(() => published() > before, 5_000, `${user}'s Home`);
    return this.fakes.slack.view(user);
  }

  /** Clicks Change settings on a Home (any view with the button: a forged click needs none of its own). */
  async open(app: SlackDriver, user: string, home?: SlackView): Promise<SlackView> {
    const opened = this.fakes.slack.callsTo('views.open').length;
    await app.clickOnHome(home ?? forgedHome(), SETTINGS.buttons.open.actionId, user);
    await this.fakes.slack.waitFor(() => this.fakes.slack.callsTo('views.open').length > opened, 3_000, 'a modal');
    return this.fakes.slack.lastOpenedView();
  }

  /** The form's entries by field (the block ids carry the version the form was made from). */
  entries(view: SlackView, values: Partial<Record<Field, Entry>>): Record<string, Entry> {
    const version = versionOf(view.private_metadata) ?? 0;
    return Object.fromEntries(
      Object.entries(values).map(([field, entry]) => [blockId(field as Field, version), entry]),
    );
  }

  /** Submits the form as `user` with these fields changed; resolves with the ack. */
  save(app: SlackDriver, view: SlackView, values: Partial<Record<Field, Entry>>, user: string) {
    return app.submitView(view, this.entries(view, values), user);
  }

  /** The workspace's stored settings row. */
  async stored(app: SlackDriver) {
    const store = app.openStore();
    try {
      return await store.workspaceSettingsRows.get(TEST_TEAM_ID);
    } finally {
      await store.close();
    }
  }

  /** The audit entries of the settings (`settings.*`), oldest first: [operation, outcome, actor]. */
  async audit(app: SlackDriver) {
    const store = app.openStore();
    try {
      return (await store.audit.list({ limit: 200 })).filter((e) => e.operation.startsWith('settings.')).reverse();
    } finally {
      await store.close();
    }
  }
}

/** A Home with the Change settings button, for clicks by people whose own Home does not show it. */
export function forgedHome(actionId: string = SETTINGS.buttons.open.actionId): SlackView {
  return {
    id: 'V0FORGEDHOME',
    type: 'home',
    blocks: [{ type: 'actions', block_id: 'forged', elements: [{ type: 'button', action_id: actionId }] }],
  };
}
