import { PassThrough } from 'node:stream';
import { App, type Receiver, type ReceiverEvent } from '@slack/bolt';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Logger, createLogger } from '../../../../src/platform/ops/telemetry/create-logger.js';
import { createMetrics } from '../../../../src/platform/ops/telemetry/metrics.js';
import { WorkBudget } from '../../../../src/platform/slack/admission/work-budget.js';
import {
  listen,
  openPipeline,
  type Listen,
  type ListenerOfKind,
} from '../../../../src/platform/slack/pipeline/listen.js';
import { NO_WORKSPACE_TEXT } from '../../../../src/platform/slack/pipeline/request-workspace.js';
import { declare } from '../../../../src/platform/slack/pipeline/declarations.js';
import { invalidInput, refused } from '../../../../src/platform/slack/pipeline/request-ended.js';
import { openStore, type Store } from '../../../../src/platform/store/store.js';
import { FakeSlack } from '../../../kit/fake-slack.js';
import { buttonClick, slashCommand, viewSubmission } from '../../../kit/slack-payloads.js';
import { TEST_CHANNEL_ID, TEST_USER_ID } from '../../../kit/slack-ids.js';
import { sqliteDatabase } from '../../../kit/store-engines.js';
import { expectScreen } from '../../../kit/screens.js';
import { ephemeralText } from '../../../kit/screen-text.js';

/**
 * The request pipeline on its own: a real Bolt App driven the way Bolt's own tests drive it (a receiver that
 * hands it Slack's payloads in-process), the fake Slack for the Web API and response_urls, a real database for
 * once-only delivery. Each test registers one listener, as a capability would, and checks what the person sees
 * and the outcome the access log records.
 */
class PayloadReceiver implements Receiver {
  private app: App | undefined;

  init(app: App): void {
    this.app = app;
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  stop(): Promise<void> {
    return Promise.resolve();
  }

  /** Delivers a payload and returns what the app acknowledged with, once every listener has finished. */
  async deliver(body: Record<string, unknown>): Promise<unknown> {
    if (!this.app) throw new Error('not initialised');
    let acked: { value: unknown } | undefined;
    const event: ReceiverEvent = {
      body,
      ack: (response?: unknown) => {
        if (acked) throw new Error('acknowledged twice');
        acked = { value: response };
        return Promise.resolve();
      },
    };
    await this.app.processEvent(event);
    if (!acked) throw new Error('never acknowledged');
    return acked.value;
  }
}

const slack = new FakeSlack();
let store: Store;
let lines: Array<Record<string, any>> = [];
let receiver: PayloadReceiver;
let on: Listen;

beforeAll(async () => {
  await slack.start();
  store = openStore(sqliteDatabase().location);
  await store.migrate();
});
afterAll(async () => {
  await store.close();
  await slack.stop();
});

beforeEach(() => {
  slack.reset();
  lines = [];
  const destination = new PassThrough();
  destination.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n').filter(Boolean))
      lines.push(JSON.parse(line) as Record<string, any>);
  });
  const logger = createLogger({ level: 'info', scrub: (text) => text, pretty: false, destination });
  receiver = new PayloadReceiver();
  const app = new App({
    token: 'xoxb-pipeline-test',
    receiver,
    tokenVerificationEnabled: false,
    botId: 'B0BOT0001',
    botUserId: 'U0BOT0001',
    clientOptions: { slackApiUrl: slack.apiUrl },
  });
  on = openPipeline(app, pipelineDeps(logger));
});

/**
 * What the pipeline is given by the app: the logger, the database, the metrics, a work budget with room, the
 * app's own workspace (single-workspace mode's; none in distribution mode), Slack's waits.
 */
function pipelineDeps(logger: Logger, homeTeam?: string) {
  const work = new WorkBudget(10);
  return {
    logger,
    store,
    work,
    metrics: createMetrics({ workInFlight: () => work.count }),
    homeTeam: () => homeTeam,
    slackCalls: {},
  };
}

/** One listener declared as a capability declares its entries (declarations.ts). */
const declaring = (on: Listen) => ({
  button: (actionId: string, listener: ListenerOfKind['buttons'], options: { once?: boolean } = {}) =>
    on.declared(declare('test', { buttons: { it: { actionId, ...options } } }), { buttons: { it: listener } }),
  form: (callbackId: string, title: string, listener: ListenerOfKind['forms']) =>
    on.declared(declare('test', { forms: { it: { callbackId, title } } }), { forms: { it: listener } }),
  command: (name: string, listener: ListenerOfKind['commands']) =>
    on.declared(declare('test', { commands: { it: { name, matches: new RegExp(`^${name}$`) } } }), {
      commands: { it: listener },
    }),
  options: (actionId: string, listener: ListenerOfKind['options']) =>
    on.declared(declare('test', { options: { it: { actionId } } }), { options: { it: listener } }),
});

const outcome = () => lines.find((line) => line.msg === 'request')?.outcome as string | undefined;
const message = {
  text: 'a message',
  blocks: [
    {
      type: 'actions',
      block_id: 'b1',
      elements: [{ type: 'button', action_id: 'press', value: 'v1', text: { type: 'plain_text', text: 'Press' } }],
    },
  ],
};
const ephemeralsTo = (url: string) => slack.responsesTo(url).map((response) => response.body);

describe('the request pipeline', () => {
  it('acknowledges a click before its listener runs, and records it as ok', async () => {
    let ran = 0;
    declaring(on).button('press', () => {
      ran += 1;
      return Promise.resolve();
    });
    await receiver.deliver(buttonClick(slack, message, 'press'));
    expect(ran).toBe(1);
    expect(outcome()).toBe('ok');
  });

  it('tells only the clicker why a refused click changed nothing, and records "refused"', async () => {
    declaring(on).button('press', () => Promise.reject(refused(':no_entry: Only the requester can do that.')));
    const click = buttonClick(slack, message, 'press');
    await receiver.deliver(click);
    expect(ephemeralsTo(click.response_url as string)).toEqual([
      { response_type: 'ephemeral', replace_original: false, text: ':no_entry: Only the requester can do that.' },
    ]);
    expect(outcome()).toBe('refused');
  });

  it('tells the clicker when a listener fails unexpectedly, logs the error for the operator, and records "failed"', async () => {
    declaring(on).button('press', () => Promise.reject(new Error('boom: a bug')));
    const click = buttonClick(slack, message, 'press');
    await receiver.deliver(click);
    const [told] = ephemeralsTo(click.response_url as string);
    expect(told?.text).toMatch(/Something went wrong inside the app/);
    expect(JSON.stringify(told)).not.toContain('boom');
    expect(lines.find((line) => line.msg === 'listener failed')).toMatchObject({ level: 'error', id: 'press' });
    expect(outcome()).toBe('failed');
  });

  it('tells the clicker in a DM when the response_url refuses the note', async () => {
    declaring(on).button('press', () => Promise.reject(refused('no')));
    const click = buttonClick(slack, message, 'press');
    slack.failResponseUrl(click.response_url as string, 404);
    await receiver.deliver(click);
    const note = slack.callsTo('chat.postEphemeral')[0];
    expect(note?.params).toMatchObject({ channel: TEST_CHANNEL_ID, user: TEST_USER_ID, text: 'no' });
  });

  it('runs a `once` click delivered twice once', async () => {
    let ran = 0;
    declaring(on).button(
      'press',
      () => {
        ran += 1;
        return Promise.resolve();
      },
      { once: true },
    );
    const click = buttonClick(slack, message, 'press');
    await receiver.deliver(click);
    await receiver.deliver(click);
    expect(ran).toBe(1);
  });

  it('records inline form errors as invalid input and claims nothing, so the corrected form runs', async () => {
    let worked = 0;
    declaring(on).form('form', 'A form', async ({ ack, view }) => {
      if (view.state.values.b?.a?.value !== 'good')
        return ack({ response_action: 'errors', errors: { b: 'Not good.' } });
      await ack();
      worked += 1;
    });
    const view = { id: 'V1', callback_id: 'form' };
    expect(
      await receiver.deliver(viewSubmission(view, { b: { a: { type: 'plain_text_input', value: 'bad' } } })),
    ).toEqual({
      response_action: 'errors',
      errors: { b: 'Not good.' },
    });
    expect(outcome()).toBe('invalid_input');
    const good = viewSubmission(view, { b: { a: { type: 'plain_text_input', value: 'good' } } });
    await receiver.deliver(good);
    await receiver.deliver(good); // the same submission again: ends inside ack
    expect(worked).toBe(1);
  });

  it('replaces the modal with why when a form is refused before its ack, or updates it after', async () => {
    declaring(on).form('early', 'Early form', () => Promise.reject(refused('Not allowed.')));
    const early = await receiver.deliver(viewSubmission({ id: 'V2', callback_id: 'early' }, {}));
    expect(early).toMatchObject({ response_action: 'update', view: { title: { text: 'Early form' } } });
    expect(JSON.stringify(early)).toContain('Not allowed.');
    // A modal with its own title (e.g. "Approve DR-…") keeps it: the notice replaces what the person read.
    const titled = { id: 'V4', callback_id: 'early', title: { type: 'plain_text', text: 'Approve DR-ABC234' } };
    expect(await receiver.deliver(viewSubmission(titled, {}))).toMatchObject({
      view: { title: { text: 'Approve DR-ABC234' } },
    });
    expect(outcome()).toBe('refused');

    declaring(on).form('late', 'Late form', async ({ ack }) => {
      await ack({ response_action: 'clear' });
      throw refused('Changed meanwhile.');
    });
    await receiver.deliver(viewSubmission({ id: 'V3', callback_id: 'late' }, {}));
    const update = slack.callsTo('views.update')[0];
    expect(update?.params).toMatchObject({ view_id: 'V3' });
    expect(JSON.stringify(update?.params)).toContain('Changed meanwhile.');
  });

  it('closes a modal whose listener never acknowledged, rather than leave it spinning', async () => {
    declaring(on).form('forgetful', 'Form', () => Promise.resolve());
    expect(await receiver.deliver(viewSubmission({ id: 'V4', callback_id: 'forgetful' }, {}))).toBeUndefined();
  });

  it("answers a command's invalid input in its ack, and a later failure through its response_url", async () => {
    declaring(on).command('/mintlink', async ({ command, ack }) => {
      if (command.text === 'bad') throw invalidInput(':warning: Bad argument.');
      await ack();
      throw new Error('after the ack');
    });
    expect(await receiver.deliver(slashCommand(slack, 'bad'))).toEqual({
      response_type: 'ephemeral',
      text: ':warning: Bad argument.',
    });
    expect(outcome()).toBe('invalid_input');

    lines = [];
    const later = slashCommand(slack, 'good');
    expect(await receiver.deliver(later)).toBeUndefined();
    const [told] = ephemeralsTo(later.response_url ?? 'none');
    expect(told).toMatchObject({ response_type: 'ephemeral' });
    expect(told?.text).toMatch(/Something went wrong inside the app/);
    expect(outcome()).toBe('failed');
  });

  it('answers an external select from its listener, and one nobody listens to at once with no options', async () => {
    const suggestion = (actionId: string) => ({
      type: 'block_suggestion',
      action_id: actionId,
      block_id: 'b1',
      value: 'dele',
      api_app_id: 'A0TEST001',
      token: 'deprecated-verification-token',
      team: { id: 'T0TEST001', domain: 'test' },
      user: { id: TEST_USER_ID, team_id: 'T0TEST001' },
      container: { type: 'view', view_id: 'V1' },
    });
    const option = { text: { type: 'plain_text' as const, text: 'Deletion approvers' }, value: 'S1' };
    declaring(on).options('groups', ({ ack }) => ack({ options: [option] }));
    expect(await receiver.deliver(suggestion('groups'))).toEqual({ options: [option] });
    expect(await receiver.deliver(suggestion('nobody_listens'))).toEqual({ options: [] });
  });

  it('acknowledges a click or a submission nobody listens to at once', async () => {
    expect(await receiver.deliver(buttonClick(slack, message, 'press'))).toBeUndefined();
    expect(await receiver.deliver(viewSubmission({ id: 'V9', callback_id: 'unknown_form' }, {}))).toBeUndefined();
  });

  it('records the outcome the work returns', async () => {
    declaring(on).button('press', () => Promise.resolve('upstream_error' as const));
    await receiver.deliver(buttonClick(slack, message, 'press'));
    expect(outcome()).toBe('upstream_error');
  });
});

describe('the workspace a request is for', () => {
  const HOME = 'T0HOME0001';
  const EXT = 'T0EXTERN01';
  const ORG = 'E0ORG00001';

  /** A Bolt App as distribution mode has it: `authorize` says which installation serves the request. */
  function appAuthorizedAs(
    installation: { teamId?: string; enterpriseId?: string; isEnterpriseInstall: boolean },
    homeTeam?: string,
  ) {
    const own = new PayloadReceiver();
    const app = new App({
      receiver: own,
      authorize: (source) =>
        Promise.resolve({
          botToken: 'xoxb-pipeline-test',
          botId: 'B0BOT0001',
          botUserId: 'U0BOT0001',
          // InstallProvider.authorize: a workspace's installation names its team; an org-wide one, none (Bolt
          // then takes the payload's).
          ...(installation.teamId ? { teamId: installation.teamId } : {}),
          enterpriseId: installation.enterpriseId ?? source.enterpriseId,
        }),
      clientOptions: { slackApiUrl: slack.apiUrl },
    });
    const logger = createLogger({
      level: 'error',
      scrub: (text) => text,
      pretty: false,
      destination: new PassThrough(),
    });
    return { receiver: own, on: openPipeline(app, pipelineDeps(logger, homeTeam)) };
  }

  /** A click by a person of `userTeam` on a message whose click names `team`. */
  function clickFrom(team: string | null, userTeam: string) {
    const click = buttonClick(slack, message, 'press');
    click.team = team === null ? null : { id: team, domain: 'x' };
    (click.user as { team_id: string }).team_id = userTeam;
    return click;
  }

  /** A form submitted by a person of `userTeam` (named in `team` too), of an installation in `installedIn`. */
  function submissionFrom(userTeam: string, installedIn: string | undefined) {
    const submission = viewSubmission({ id: 'V0CONNECT1', callback_id: 'decide' }, {});
    submission.team = { id: userTeam, domain: 'x' };
    (submission.user as { team_id: string }).team_id = userTeam;
    if (installedIn) (submission.view as Record<string, unknown>).app_installed_team_id = installedIn;
    return submission;
  }

  it('is the installation’s workspace for every kind of request, not the person’s (Slack Connect)', async () => {
    const { receiver: own, on: listening } = appAuthorizedAs({ teamId: HOME, isEnterpriseInstall: false });
    const seen: Record<string, string> = {};
    declaring(listening).button('press', ({ teamId }) => Promise.resolve(void (seen.button = teamId)));
    declaring(listening).form('decide', 'Decide', async ({ ack, teamId }) => {
      seen.form = teamId;
      await ack();
    });
    declaring(listening).command('/mintlink', async ({ ack, teamId }) => {
      seen.command = teamId;
      await ack();
    });
    await own.deliver(clickFrom(HOME, EXT));
    await own.deliver(submissionFrom(EXT, HOME));
    await own.deliver(slashCommand(slack, 'help', { team_id: HOME, user_id: 'U0EXTERN01' }));
    expect(seen).toEqual({ button: HOME, form: HOME, command: HOME });
  });

  it('is the person’s own workspace in an org-wide installation, whatever else the payload names', async () => {
    const { receiver: own, on: listening } = appAuthorizedAs({ enterpriseId: ORG, isEnterpriseInstall: true });
    // The organization's workspaces, as Slack lists them (auth.teams.list).
    await store.installationRows.recordTeam('T0ORGWS001', `E${ORG}`);
    await store.installationRows.recordTeam('T0ORGWS002', `E${ORG}`);
    const seen: string[] = [];
    declaring(listening).button('press', ({ teamId }) => Promise.resolve(void seen.push(teamId)));
    declaring(listening).form('decide', 'Decide', async ({ ack, teamId }) => {
      seen.push(teamId);
      await ack();
    });
    const orgWide = <T extends Record<string, unknown>>(payload: T) => ({
      ...payload,
      enterprise: { id: ORG, name: 'Org' },
      is_enterprise_install: true,
    });
    await own.deliver(orgWide(clickFrom(null, 'T0ORGWS001'))); // an org-wide install's click names no team
    await own.deliver(orgWide(clickFrom(null, 'T0ORGWS002')));
    // A form whose installation Slack names by the organisation: the person's workspace, never the org's id.
    await own.deliver(orgWide(submissionFrom('T0ORGWS002', ORG)));
    expect(seen).toEqual(['T0ORGWS001', 'T0ORGWS002', 'T0ORGWS002']);

    // A person of a workspace the organization's installation does not serve (a channel shared with another
    // organization): refused before the listener, never scoped to that workspace.
    await own.deliver(orgWide(clickFrom(null, 'T0FOREIGN1')));
    await own.deliver(orgWide(submissionFrom('T0FOREIGN1', ORG)));
    expect(seen).toEqual(['T0ORGWS001', 'T0ORGWS002', 'T0ORGWS002']);
  });

  /** A click whose payload names no workspace at all, authorized without one. */
  function clickNamingNoWorkspace() {
    const click = clickFrom(null, 'none');
    delete (click.user as { team_id?: string }).team_id;
    return click;
  }

  it('is the app’s own workspace when Slack names none (single-workspace mode)', async () => {
    const { receiver: own, on: listening } = appAuthorizedAs({ isEnterpriseInstall: false }, HOME);
    const seen: string[] = [];
    declaring(listening).button('press', ({ teamId }) => Promise.resolve(void seen.push(teamId)));
    await own.deliver(clickNamingNoWorkspace());
    expect(seen).toEqual([HOME]);
  });

  it('refuses a request for no workspace before its listener runs, and tells the person', async () => {
    const { receiver: own, on: listening } = appAuthorizedAs({ isEnterpriseInstall: false });
    let ran = 0;
    declaring(listening).button('press', () => Promise.resolve(void (ran += 1)));
    const click = clickNamingNoWorkspace();
    await own.deliver(click);
    expect(ran).toBe(0);
    const told = ephemeralsTo(click.response_url as string);
    expect(told).toEqual([{ response_type: 'ephemeral', replace_original: false, text: NO_WORKSPACE_TEXT }]);
    await expectScreen('workspaces/click--no-workspace', ephemeralText(told[0] ?? {}));
  });
});

describe('opening the pipeline', () => {
  const logger = createLogger({ level: 'error', scrub: (text) => text, pretty: false, destination: new PassThrough() });
  const bareApp = () =>
    new App({ token: 'xoxb-pipeline-test', receiver: new PayloadReceiver(), tokenVerificationEnabled: false });

  it('is the wiring’s, once, before any capability listens', () => {
    // A capability's deps hold no installations: it cannot open the pipeline by listening first.
    expect(() => listen(bareApp(), { logger, store, slackCalls: {} })).toThrow('the wiring opens the request pipeline');
    const app = bareApp();
    openPipeline(app, pipelineDeps(logger));
    expect(() => listen(app, { logger, store, slackCalls: {} })).not.toThrow();
    expect(() => openPipeline(app, pipelineDeps(logger))).toThrow('the request pipeline is opened once per app');
  });
});

describe('declarations', () => {
  const declarations = declare('test', {
    buttons: { press: { actionId: 'press', label: 'Press' }, close: { actionId: 'close' } },
    forms: { decide: { callbackId: 'decide', title: 'Decide' } },
  });
  const done = () => Promise.resolve();

  it('registers a listener for every declared entry, and knows them', async () => {
    const pressed: string[] = [];
    on.declared(declarations, {
      buttons: { press: () => Promise.resolve(void pressed.push('press')), close: done },
      forms: { decide: done },
    });
    await receiver.deliver(buttonClick(slack, message, 'press'));
    expect(pressed).toEqual(['press']);
    expect(outcome()).toBe('ok');
  });

  it('refuses to start with a declared entry that has no listener, or a listener for no entry', () => {
    const missing = { buttons: { press: done }, forms: { decide: done } };
    // @ts-expect-error -- `close` has no listener: the type refuses it, and so does the start
    expect(() => on.declared(declarations, missing)).toThrow(
      'test: buttons.close ("close") is declared but has no listener',
    );
    const extra = { buttons: { press: done, close: done, open: done }, forms: { decide: done } };
    expect(() => on.declared(declarations, extra)).toThrow('test: buttons.open has a listener but is not declared');
  });
});
