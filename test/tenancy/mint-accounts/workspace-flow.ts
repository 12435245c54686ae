import { afterEach, beforeEach, expect } from 'vitest';
import { ACCOUNT_BLOCKS } from '../../../src/capabilities/mint-account/connect-form.js';
import { CONNECT_MINT_ACCOUNT_ACTION } from '../../../src/tenancy/mint-accounts/not-connected.js';
import type { Fakes } from '../../kit/fakes.js';
import type { ListenerApp } from '../../kit/listener-app.js';
import { listenerOAuthApp } from '../../kit/listener-installs.js';
import { queryRows } from '../../kit/raw-sql.js';
import { expectNoSecretsLeaked, textOf } from '../../kit/slack-checks.js';
import { TEST_TEAM_ID } from '../../kit/slack-ids.js';
import {
  buttonClick,
  eventCallback,
  viewButtonClick,
  viewSubmission,
  type PostedMessage,
  type SlackView,
} from '../../kit/slack-payloads.js';
import { responseUrls, stateValues, type Entry } from '../../kit/view-state.js';
import { migrated, sqliteDatabase } from '../../kit/store-engines.js';
import { DISTRIBUTION_ENV, inTeam } from '../../kit/workspaces.js';
import { MINT_ACCOUNT } from '../../../src/capabilities/mint-account/actions.js';

/*
 * Distribution mode driven as people in several workspaces use it: Homes, clicks, forms, commands and
 * workflow steps, each sent as from its workspace, against a fresh app (and database) for each test, on the
 * fast tier (test/kit/listener-app.ts; workspaces installed by test/kit/listener-installs.ts). The database is a
 * file, so that `rows` reads it beside the app.
 */

/** A key of workspace A (TEST_TEAM_ID) and one of workspace B (OTHER_TEAM_ID), both known to the mock service. */
export const KEY_A = 'acme-mint-key-7Hq2Lw9xTa1234';
export const KEY_B = 'globex-mint-key-Zr8Kp3VbQe5678';

export type WorkspaceFlow = ReturnType<typeof workspaceFlow>;

/**
 * A distributed app started for each test, and the steps of its users. After each test: no Slack call made with
 * a token was refused, and neither key is in anything the app sent, logged or stored.
 */
export function useWorkspaces(fakes: Fakes, env: Record<string, string> = {}): WorkspaceFlow {
  let app: ListenerApp | undefined;
  beforeEach(async () => {
    fakes.mint.acceptKey(KEY_A);
    fakes.mint.acceptKey(KEY_B);
    const db = sqliteDatabase();
    // A copy of a migrated file: the app's own migrator then finds nothing to do.
    await migrated(db);
    app = await fakes.startListenerApp({ env: { ...DISTRIBUTION_ENV, DATABASE_URL: db.databaseUrl, ...env } });
    fakes.slack.oauthApp = listenerOAuthApp();
  });
  afterEach(async () => {
    // Every call carries its workspace's token: Slack refuses none.
    expect(fakes.slack.failedCalls.map((c) => [c.method, c.answer])).toEqual([]);
    expectNoSecretsLeaked(fakes.slack, flow.app);
    await flow.expectKeysNowhere([KEY_A, KEY_B]);
    await app?.stop();
    app = undefined;
  });
  const flow = workspaceFlow(fakes, () => {
    if (!app) throw new Error('the app is not started yet');
    return app;
  });
  return flow;
}

function workspaceFlow(fakes: Fakes, current: () => ListenerApp) {
  const publishes = (userId: string) =>
    fakes.slack.callsTo('views.publish').filter((c) => c.params.user_id === userId).length;
  const opened = () => fakes.slack.callsTo('views.open').length + fakes.slack.callsTo('views.push').length;

  const flow = {
    get app(): ListenerApp {
      return current();
    },

    interact: (payload: Record<string, unknown>, teamId = TEST_TEAM_ID) => current().interact(inTeam(payload, teamId)),

    /** An Events API callback as from `teamId`. */
    event: async (event: Record<string, unknown>, teamId = TEST_TEAM_ID): Promise<void> => {
      await current().deliverEvent(inTeam(eventCallback(event), teamId));
    },

    /** `userId` opens their Home in `teamId`; resolves with it once published. */
    home: async (userId: string, teamId = TEST_TEAM_ID): Promise<SlackView> => {
      const before = publishes(userId);
      await flow.event({ type: 'app_home_opened', user: userId, channel: `D${userId.slice(1)}`, tab: 'home' }, teamId);
      await fakes.slack.waitFor(() => publishes(userId) > before, 5_000, `${userId}'s Home`);
      return fakes.slack.view(userId);
    },

    /** `userId`'s Home once it `matches` (it is published again after changes). */
    homeWhen: async (userId: string, matches: (text: string) => boolean): Promise<SlackView> => {
      await fakes.slack.waitFor(() => matches(textOf(fakes.slack.view(userId))), 5_000, `a Home of ${userId}`);
      return fakes.slack.view(userId);
    },

    /** Clicks a button on a Home or a modal; resolves with the modal it opened, if any. */
    click: async (view: SlackView, actionId: string, userId: string, teamId = TEST_TEAM_ID) => {
      const before = opened();
      await flow.interact(viewButtonClick(fakes.slack, view, actionId, {}, userId), teamId);
      await current().waitForIdle();
      return opened() > before ? fakes.slack.lastOpenedView() : undefined;
    },

    /** Clicks a button of a message as `userId` of `teamId`; resolves with the click's response_url. */
    clickMessage: async (message: PostedMessage, actionId: string, userId: string, teamId = TEST_TEAM_ID) => {
      const payload = buttonClick(fakes.slack, message, actionId, userId);
      await flow.interact(payload, teamId);
      return String(payload.response_url);
    },

    /** Submits a modal as `userId` of `teamId`; Slack's side of the ack is applied to the fake. */
    submit: async (view: SlackView, entries: Record<string, Entry>, userId: string, teamId = TEST_TEAM_ID) => {
      const values = stateValues(view, entries);
      const urls = responseUrls(view, values, () => fakes.slack.responseUrl());
      const ack = await flow.interact(viewSubmission(view, values, userId, urls), teamId);
      fakes.slack.applySubmissionAck(view.id, ack);
      return ack;
    },

    /** `/mintlink <text>` from `userId` of `teamId`. */
    command: (text: string, userId: string, teamId = TEST_TEAM_ID) =>
      current().command(text, { team_id: teamId, user_id: userId }),

    /** `/mintlink <text>` that opens a form; resolves with the views.open call and the form. */
    formFromCommand: async (text: string, userId: string, teamId = TEST_TEAM_ID) => {
      const { fields } = await flow.command(text, userId, teamId);
      const open = await fakes.slack.waitForCall('views.open', (c) => c.params.trigger_id === fields.trigger_id);
      return { open, form: fakes.slack.lastOpenedView() };
    },

    /** A workflow runs one of the app's steps in `teamId`; resolves with how it ended. */
    step: async (callbackId: string, inputs: Record<string, unknown>, teamId = TEST_TEAM_ID) => {
      const event = fakes.slack.stepExecution(callbackId, inputs);
      await flow.event(event, teamId);
      return fakes.slack.stepEnd(String(event.function_execution_id));
    },

    /** An admin connects the workspace's Mint account from their Home; resolves with the outcome modal. */
    connect: async (userId: string, apiKey: string, teamId = TEST_TEAM_ID) => {
      const form = await flow.click(await flow.home(userId, teamId), CONNECT_MINT_ACCOUNT_ACTION, userId, teamId);
      if (form?.callback_id !== MINT_ACCOUNT.forms.connect.callbackId) throw new Error('the connect form did not open');
      const ack = await flow.submit(form, { [ACCOUNT_BLOCKS.apiKey]: apiKey }, userId, teamId);
      expect(ack?.response_action).toBe('update');
      return fakes.slack.viewUpdate(form.id);
    },

    /** Rows of the app's database. */
    rows: (sql: string) => queryRows(current().env.DATABASE_URL ?? '', sql),

    /** No key in what the app sent to Slack, in its logs, or anywhere in its database (sealed values aside). */
    expectKeysNowhere: async (keys: string[]) => {
      const sent = JSON.stringify([
        fakes.slack.calls.map(({ params: { token: _token, ...rest } }) => rest),
        fakes.slack.responses,
      ]);
      const tables = await flow.rows(`select name from sqlite_master where type = 'table'`);
      const stored = JSON.stringify(await Promise.all(tables.map((t) => flow.rows(`select * from ${String(t.name)}`))));
      for (const key of keys) {
        expect(sent).not.toContain(key);
        expect(current().logs).not.toContain(key);
        expect(stored).not.toContain(key);
      }
    },
  };
  return flow;
}
