import { randomUUID } from 'node:crypto';
import { z } from 'zod';
// What a person types reaches Slack with its control characters escaped (the client does it), as the app escapes.
import { escapeMrkdwn } from '../../src/platform/blocks/mrkdwn.js';
import { messageProblems, optionsAnswerProblems } from './block-kit-limits.js';
import type { FakeSlack } from './fake-slack.js';
import type { ManifestFacts, StepDeclaration } from './manifest-facts.js';
import { APP_USER_ID, CHANNELS, TEAM_ID, appDmId, personById } from './people.js';
import { TEST_APP_ID } from './slack-ids.js';
import type { AckResult, AppLink } from './to-app.js';
import { Workspace, type Json, type ModalEntry } from './workspace.js';

/*
 * What a person does on the page, turned into what Slack sends the app (the payloads of
 * https://api.slack.com/reference/interaction-payloads), and the app's acknowledgement applied the way
 * Slack applies it: a command's answer shown, a modal closed, updated or marked with inline errors.
 */

const person = z.string().min(1);
const id = z.string().min(1).max(200);
/** What the page sends of a click or of a form's values: Slack's own shapes, passed on to the app as they are. */
const slackJson = z.record(z.string(), z.any());

/** One schema for what the page may ask (`/api/act`): anything else is refused with the field named. */
export const pageActionSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('message'),
    as: person,
    channel: id,
    text: z.string().max(40_000),
    threadTs: id.optional(),
  }),
  z.object({ type: z.literal('shortcut'), as: person, callbackId: id }),
  z.object({ type: z.literal('messageShortcut'), as: person, callbackId: id, channel: id, ts: id }),
  z.object({ type: z.literal('messageAction'), as: person, channel: id, ts: id, action: slackJson }),
  z.object({ type: z.literal('viewAction'), as: person, viewId: id, action: slackJson, values: slackJson }),
  z.object({ type: z.literal('submit'), as: person, viewId: id, values: slackJson }),
  z.object({
    type: z.literal('suggest'),
    as: person,
    viewId: id,
    blockId: id,
    actionId: id,
    value: z.string().max(2000),
    values: slackJson,
  }),
  z.object({ type: z.literal('close'), as: person, viewId: id }),
  z.object({ type: z.literal('openHome'), as: person, tab: z.enum(['home', 'messages']) }),
  z.object({
    type: z.literal('runStep'),
    as: person,
    callbackId: id,
    inputs: z.record(z.string(), z.union([z.string().max(40_000), z.boolean()])),
  }),
  z.object({ type: z.literal('dismiss'), as: person, noticeId: z.number().int() }),
]);

export type PageAction = z.infer<typeof pageActionSchema>;

export interface ActResult {
  ok: boolean;
  /** The app's ack time, when the action reached the app. */
  ackMs?: number;
  error?: string;
  /** A block_suggestion's answer: the options the app offers for what was typed. */
  options?: Json[];
  optionGroups?: Json[];
}

/** Slack's default min_query_length of a select with an external data source. */
const MIN_QUERY_LENGTH = 3;
const EXTERNAL_SELECTS = new Set(['external_select', 'multi_external_select']);

const SLACKBOT = 'USLACKBOT';

export class Interactions {
  constructor(
    private readonly workspace: Workspace,
    private readonly slack: FakeSlack,
    private readonly app: AppLink,
    private readonly manifest: ManifestFacts,
  ) {}

  async act(action: PageAction): Promise<ActResult> {
    if (!personById(action.as)) return { ok: false, error: `nobody with id ${action.as} in the sandbox` };
    switch (action.type) {
      case 'message':
        return this.message(action);
      case 'shortcut':
        return this.shortcut(action);
      case 'messageShortcut':
        return this.messageShortcut(action);
      case 'messageAction':
        return this.messageAction(action);
      case 'viewAction':
        return this.viewAction(action);
      case 'submit':
        return this.submit(action);
      case 'suggest':
        return this.suggest(action);
      case 'close':
        return this.close(action);
      case 'openHome':
        return this.openHome(action);
      case 'runStep':
        return this.runStep(action);
      case 'dismiss':
        this.workspace.dismissNotice(action.as, action.noticeId);
        return { ok: true };
    }
  }

  // ---- Composer --------------------------------------------------------------------------------------

  private async message(action: Extract<PageAction, { type: 'message' }>): Promise<ActResult> {
    const text = action.text.trim();
    if (!text) return { ok: false, error: 'nothing to send' };
    if (!this.workspace.conversationsOf(action.as).includes(action.channel))
      return { ok: false, error: 'not a conversation of yours' };
    const command = /^\/(\S+)\s*([\s\S]*)$/.exec(text);
    if (!command) {
      this.workspace.post({
        channel: action.channel,
        from: action.as,
        text: escapeMrkdwn(text),
        ...(action.threadTs ? { threadTs: action.threadTs } : {}),
      });
      return { ok: true };
    }
    if (command[1] !== 'mintlink') {
      this.workspace.post({
        channel: action.channel,
        from: SLACKBOT,
        ephemeralFor: action.as,
        text: `\`/${command[1]}\` is not a valid command. In Slack, all messages that start with the "/" character are interpreted as commands.`,
      });
      return { ok: true };
    }
    return this.slashCommand(action.as, action.channel, command[2] ?? '');
  }

  private async slashCommand(user: string, channel: string, text: string): Promise<ActResult> {
    const channelInfo = CHANNELS.find((c) => c.id === channel);
    const fields = {
      token: 'sandbox-verification-token',
      team_id: TEAM_ID,
      team_domain: 'mint-demo',
      channel_id: channel,
      channel_name: channelInfo?.name ?? 'directmessage',
      user_id: user,
      user_name: userName(user),
      command: '/mintlink',
      text,
      api_app_id: TEST_APP_ID,
      is_enterprise_install: 'false',
      response_url: this.workspace.responseUrl({ channel, user }),
      trigger_id: this.workspace.trigger(user, `/mintlink ${text}`.trim()),
    };
    const ack = await this.app.command(fields);
    if (!ack.ok) return this.ackFailed(user, ack, `/mintlink ${text}`.trim(), 'command');
    const body = ack.body;
    if (body && (typeof body.text === 'string' || Array.isArray(body.blocks))) {
      const problems = messageProblems(body);
      if (problems.length > 0) {
        this.workspace.violation(
          'Block Kit limits',
          `the command's ack message breaks Slack's rules: ${problems.slice(0, 5).join('; ')}`,
        );
        this.workspace.notify(user, '/mintlink failed with the error "invalid_blocks"');
      } else {
        const inChannel = body.response_type === 'in_channel';
        if (inChannel) this.workspace.post({ channel, from: user, text: escapeMrkdwn(`/mintlink ${text}`) });
        this.workspace.post({
          channel,
          from: APP_USER_ID,
          ...(typeof body.text === 'string' ? { text: body.text } : {}),
          ...(Array.isArray(body.blocks) ? { blocks: body.blocks as Json[] } : {}),
          ...(inChannel ? {} : { ephemeralFor: user }),
        });
      }
    }
    return { ok: true, ackMs: ack.ms };
  }

  // ---- Shortcuts -------------------------------------------------------------------------------------

  private async shortcut(action: Extract<PageAction, { type: 'shortcut' }>): Promise<ActResult> {
    const shortcut = this.manifest.shortcuts.find((s) => s.type === 'global' && s.callbackId === action.callbackId);
    if (!shortcut) return { ok: false, error: `no global shortcut ${action.callbackId}` };
    const ack = await this.app.interaction({
      type: 'shortcut',
      token: 'sandbox-verification-token',
      action_ts: actionTs(),
      team: { id: TEAM_ID, domain: 'mint-demo' },
      user: userObject(action.as),
      is_enterprise_install: false,
      callback_id: shortcut.callbackId,
      trigger_id: this.workspace.trigger(action.as, `the shortcut “${shortcut.name}”`),
    });
    return ack.ok ? { ok: true, ackMs: ack.ms } : this.ackFailed(action.as, ack, shortcut.name, 'interaction');
  }

  private async messageShortcut(action: Extract<PageAction, { type: 'messageShortcut' }>): Promise<ActResult> {
    const shortcut = this.manifest.shortcuts.find((s) => s.type === 'message' && s.callbackId === action.callbackId);
    const message = this.workspace.findMessage(action.channel, action.ts);
    if (!shortcut || !message) return { ok: false, error: 'no such shortcut or message' };
    const ack = await this.app.interaction({
      type: 'message_action',
      token: 'sandbox-verification-token',
      action_ts: actionTs(),
      team: { id: TEAM_ID, domain: 'mint-demo' },
      user: userObject(action.as),
      channel: { id: action.channel, name: channelName(action.channel) },
      is_enterprise_install: false,
      callback_id: shortcut.callbackId,
      trigger_id: this.workspace.trigger(action.as, `the message shortcut “${shortcut.name}”`),
      response_url: this.workspace.responseUrl({ channel: action.channel, user: action.as }),
      message_ts: message.ts,
      message: { type: 'message', user: message.from, ts: message.ts, text: message.text ?? '' },
    });
    return ack.ok ? { ok: true, ackMs: ack.ms } : this.ackFailed(action.as, ack, shortcut.name, 'interaction');
  }

  // ---- Buttons and selects ---------------------------------------------------------------------------

  private async messageAction(action: Extract<PageAction, { type: 'messageAction' }>): Promise<ActResult> {
    const message = this.workspace.findMessage(action.channel, action.ts);
    if (!message || (message.ephemeralFor && message.ephemeralFor !== action.as))
      return { ok: false, error: 'no such message' };
    const ephemeral = message.ephemeralFor !== undefined;
    const ack = await this.app.interaction({
      type: 'block_actions',
      user: userObject(action.as),
      api_app_id: TEST_APP_ID,
      token: 'sandbox-verification-token',
      container: { type: 'message', message_ts: message.ts, channel_id: action.channel, is_ephemeral: ephemeral },
      trigger_id: this.workspace.trigger(action.as, 'the click'),
      team: { id: TEAM_ID, domain: 'mint-demo' },
      channel: { id: action.channel, name: channelName(action.channel) },
      ...(ephemeral
        ? {}
        : {
            message: {
              type: 'message',
              user: message.from,
              ts: message.ts,
              text: message.text ?? '',
              ...(message.blocks ? { blocks: message.blocks } : {}),
            },
          }),
      response_url: this.workspace.responseUrl({ channel: action.channel, user: action.as, sourceTs: message.ts }),
      actions: [{ ...action.action, action_ts: actionTs() }],
    });
    return ack.ok ? { ok: true, ackMs: ack.ms } : this.ackFailed(action.as, ack, 'the click', 'interaction');
  }

  /** The view a person acts in: their Home tab (its id is theirs) or one of their open modals. */
  private shownView(as: string, viewId: string): { view: Record<string, any>; isHome: boolean } | undefined {
    const home = viewId === as ? this.workspace.homes.get(as) : undefined;
    if (home) return { view: { ...home.view, id: viewId, hash: home.hash }, isHome: true };
    const entry = this.ownModal(as, viewId);
    return entry ? { view: viewOf(entry), isHome: false } : undefined;
  }

  private async viewAction(action: Extract<PageAction, { type: 'viewAction' }>): Promise<ActResult> {
    const shown = this.shownView(action.as, action.viewId);
    if (!shown) return { ok: false, error: 'that view is no longer open' };
    const { view, isHome } = shown;
    const ack = await this.app.interaction({
      type: 'block_actions',
      user: userObject(action.as),
      api_app_id: TEST_APP_ID,
      token: 'sandbox-verification-token',
      container: { type: 'view', view_id: action.viewId },
      trigger_id: this.workspace.trigger(action.as, 'the click'),
      team: { id: TEAM_ID, domain: 'mint-demo' },
      view: asSent(view, { type: isHome ? 'home' : 'modal', values: action.values, rootViewId: action.viewId }),
      actions: [{ ...action.action, action_ts: actionTs() }],
    });
    return ack.ok ? { ok: true, ackMs: ack.ms } : this.ackFailed(action.as, ack, 'the click', 'interaction');
  }

  /**
   * A select with an external data source asks the app for its options as the person types (from
   * min_query_length characters): a signed block_suggestion to the app's options load URL (in HTTP mode the
   * same /slack/events), answered within 3 s with `options` or `option_groups`, as Slack asks.
   */
  private async suggest(action: Extract<PageAction, { type: 'suggest' }>): Promise<ActResult> {
    const shown = this.shownView(action.as, action.viewId);
    if (!shown) return { ok: false, error: 'that view is no longer open' };
    const { view, isHome } = shown;
    const element = elementOf(view, action.blockId, action.actionId);
    if (!element || !EXTERNAL_SELECTS.has(String(element.type)))
      return { ok: false, error: 'no select with an external data source there' };
    const min = Number.isInteger(element.min_query_length) ? Number(element.min_query_length) : MIN_QUERY_LENGTH;
    if (action.value.length < min)
      return { ok: false, error: `Slack asks the app for options once ${min} characters are typed` };
    const ack = await this.app.interaction({
      type: 'block_suggestion',
      user: userObject(action.as),
      container: { type: 'view', view_id: action.viewId },
      api_app_id: TEST_APP_ID,
      token: 'sandbox-verification-token',
      action_id: action.actionId,
      block_id: action.blockId,
      value: action.value,
      team: { id: TEAM_ID, domain: 'mint-demo' },
      enterprise: null,
      is_enterprise_install: false,
      view: asSent(view, { type: isHome ? 'home' : 'modal', values: action.values, rootViewId: action.viewId }),
    });
    const what = `the options of ${action.blockId}`;
    if (!ack.ok) {
      this.workspace.violation(
        ack.reason === 'timeout' ? '3 s ack' : 'Delivery',
        `${what}: ${ack.reason === 'timeout' ? 'the app did not answer within 3 s' : `the app answered ${ack.status ?? ack.detail}`}`,
      );
      return { ok: false, ackMs: ack.ms, error: ack.reason };
    }
    const problems = optionsAnswerProblems(ack.body);
    if (problems.length > 0) {
      this.workspace.violation(
        'Block Kit limits',
        `${what}: Slack shows no options for this answer: ${problems.slice(0, 5).join('; ')}`,
      );
      return { ok: false, ackMs: ack.ms, error: 'invalid_options' };
    }
    const body = ack.body ?? {};
    return {
      ok: true,
      ackMs: ack.ms,
      ...(Array.isArray(body.options) ? { options: body.options as Json[] } : {}),
      ...(Array.isArray(body.option_groups) ? { optionGroups: body.option_groups as Json[] } : {}),
    };
  }

  // ---- Modals ----------------------------------------------------------------------------------------

  private ownModal(user: string, viewId: string): ModalEntry | undefined {
    return this.workspace.modalStack(user).find((m) => m.viewId === viewId);
  }

  private async submit(action: Extract<PageAction, { type: 'submit' }>): Promise<ActResult> {
    const stack = this.workspace.modalStack(action.as);
    const index = stack.findIndex((m) => m.viewId === action.viewId);
    const entry = stack[index];
    if (!entry) return { ok: false, error: 'that modal is no longer open' };
    entry.busy = true;
    this.workspace.changed();
    const ack = await this.app.interaction({
      type: 'view_submission',
      team: { id: TEAM_ID, domain: 'mint-demo' },
      user: userObject(action.as),
      api_app_id: TEST_APP_ID,
      token: 'sandbox-verification-token',
      trigger_id: this.workspace.trigger(action.as, 'the submission'),
      view: {
        ...asSent(viewOf(entry), {
          type: 'modal',
          values: action.values,
          rootViewId: stack[0]?.viewId ?? entry.viewId,
        }),
        ...(index > 0 ? { previous_view_id: stack[index - 1]?.viewId } : {}),
      },
      response_urls: this.responseUrlsOf(entry.view, action.values, action.as),
      is_enterprise_install: false,
    });
    entry.busy = false;
    this.workspace.changed();
    if (!ack.ok) return this.ackFailed(action.as, ack, 'the submission', 'interaction');
    this.applySubmissionAck(action.as, entry, index, ack.body);
    return { ok: true, ackMs: ack.ms };
  }

  /** Slack's rules for a view_submission's ack: close, errors, update, push or clear. */
  private applySubmissionAck(user: string, entry: ModalEntry, index: number, ack: Json | undefined): void {
    const action = ack?.response_action;
    if (!ack || Object.keys(ack).length === 0) return this.workspace.closeModals(user, index);
    if (action === 'errors') {
      const errors = (ack.errors ?? {}) as Record<string, string>;
      const inputs = new Set(
        ((entry.view.blocks ?? []) as Json[]).filter((b) => b.type === 'input').map((b) => b.block_id),
      );
      const stray = Object.keys(errors).filter((id) => !inputs.has(id));
      if (stray.length > 0) {
        this.workspace.violation(
          'response_action errors',
          `errors keyed by blocks that are not input blocks of the view (${stray.join(', ')}): Slack refuses the ack`,
        );
        this.workspace.notify(user, 'We had some trouble connecting. Try again?');
        return;
      }
      entry.errors = errors;
      this.workspace.changed();
      return;
    }
    if (action === 'update' || action === 'push') {
      const problems = Workspace.viewProblems(ack.view);
      if (problems.length > 0) {
        this.workspace.violation(
          'Block Kit limits',
          `the view in the ack (response_action ${action}) breaks Slack's rules: ${problems.slice(0, 5).join('; ')}`,
        );
        this.workspace.notify(user, 'We had some trouble connecting. Try again?');
        return;
      }
      if (action === 'update') {
        this.slack.applySubmissionAck(entry.viewId, ack);
        entry.view = ack.view as Json;
        entry.hash = this.slack.view(entry.viewId).hash;
        delete entry.errors;
      } else {
        const stack = this.workspace.modalStack(user);
        if (stack.length >= 3) {
          this.workspace.violation('Modal stack', 'response_action push on a stack of 3 views (push_limit_reached)');
          return;
        }
        stack.push({
          viewId: `VSB${randomUUID().slice(0, 8).toUpperCase()}`,
          view: ack.view as Json,
          hash: actionTs(),
        });
      }
      this.workspace.changed();
      return;
    }
    if (action === 'clear') return this.workspace.closeModals(user, 0);
    this.workspace.violation('response_action', `unknown response_action ${String(action)} in a view_submission ack`);
  }

  /** Conversation selects with response_url_enabled: one response_url per selected conversation. */
  private responseUrlsOf(view: Json, values: Json, user: string): Json[] {
    const urls: Json[] = [];
    for (const block of (view.blocks ?? []) as Json[]) {
      const element = block.element as Json | undefined;
      if (block.type !== 'input' || element?.type !== 'conversations_select' || !element.response_url_enabled) continue;
      const channel = values[block.block_id]?.[element.action_id]?.selected_conversation as string | undefined;
      if (channel)
        urls.push({
          block_id: block.block_id,
          action_id: element.action_id,
          channel_id: channel,
          response_url: this.workspace.responseUrl({ channel, user }),
        });
    }
    return urls;
  }

  private async close(action: Extract<PageAction, { type: 'close' }>): Promise<ActResult> {
    const stack = this.workspace.modalStack(action.as);
    const index = stack.findIndex((m) => m.viewId === action.viewId);
    const entry = stack[index];
    if (!entry) return { ok: true };
    // Closing a pushed view goes back to the one under it; closing the first closes the modal.
    this.workspace.closeModals(action.as, index);
    if (entry.view.notify_on_close !== true) return { ok: true };
    const ack = await this.app.interaction({
      type: 'view_closed',
      team: { id: TEAM_ID, domain: 'mint-demo' },
      user: userObject(action.as),
      api_app_id: TEST_APP_ID,
      token: 'sandbox-verification-token',
      view: { ...viewOf(entry), team_id: TEAM_ID, type: 'modal', state: { values: {} }, app_id: TEST_APP_ID },
      is_cleared: false,
      is_enterprise_install: false,
    });
    return ack.ok ? { ok: true, ackMs: ack.ms } : this.ackFailed(action.as, ack, 'closing the modal', 'interaction');
  }

  // ---- Events ----------------------------------------------------------------------------------------

  private async openHome(action: Extract<PageAction, { type: 'openHome' }>): Promise<ActResult> {
    const home = this.workspace.homes.get(action.as);
    const ack = await this.app.event(
      eventCallback({
        type: 'app_home_opened',
        user: action.as,
        channel: appDmId(action.as),
        tab: action.tab,
        ...(home ? { view: { ...home.view, id: action.as, hash: home.hash, type: 'home', team_id: TEAM_ID } } : {}),
      }),
    );
    return ack.ok ? { ok: true, ackMs: ack.ms } : this.ackFailed(action.as, ack, 'the App Home', 'event');
  }

  private async runStep(action: Extract<PageAction, { type: 'runStep' }>): Promise<ActResult> {
    const step = this.manifest.steps.find((s) => s.callbackId === action.callbackId);
    if (!step) return { ok: false, error: `no step ${action.callbackId}` };
    const inputs = stepInputs(step, action.inputs, action.as);
    if ('error' in inputs) return { ok: false, error: inputs.error };
    const event = this.slack.stepExecution(step.callbackId, inputs.values);
    const executionId = String(event.function_execution_id);
    this.workspace.runs.set(executionId, {
      executionId,
      callbackId: step.callbackId,
      title: step.title,
      user: action.as,
      inputs: inputs.values,
      state: 'running',
      startedAt: Date.now(),
    });
    this.workspace.changed();
    const ack = await this.app.event(eventCallback(event));
    return ack.ok ? { ok: true, ackMs: ack.ms } : this.ackFailed(action.as, ack, `the step ${step.title}`, 'event');
  }

  /** What Slack shows when the app did not acknowledge in time, or answered with an error status. */
  private ackFailed(
    user: string,
    ack: Extract<AckResult, { ok: false }>,
    what: string,
    kind: 'command' | 'interaction' | 'event',
  ): ActResult {
    if (ack.reason === 'timeout') {
      this.workspace.violation('3 s ack', `${what}: the app did not acknowledge within 3 s`);
      this.workspace.notify(
        user,
        kind === 'command'
          ? `${what.split(' ')[0]} failed with the error "operation_timeout"`
          : 'Operation timed out. Apps need to respond within three seconds.',
      );
    } else {
      this.workspace.notify(
        user,
        kind === 'command'
          ? `${what.split(' ')[0]} failed with the error "dispatch_failed"`
          : `We had some trouble connecting to ${this.manifest.appName}. Try again?`,
      );
      this.workspace.violation('Delivery', `${what}: the app answered ${ack.status ?? ack.detail}`);
    }
    return { ok: false, ackMs: ack.ms, error: ack.reason };
  }
}

/** Typed step inputs as Workflow Builder hands them to the app, from what was typed on the page. */
export function stepInputs(
  step: StepDeclaration,
  typed: Record<string, string | boolean>,
  user: string,
): { values: Json } | { error: string } {
  const values: Json = {};
  for (const input of step.inputs) {
    if (input.type === 'slack#/types/user_context') {
      values[input.name] = { id: user, secret: `sandbox-${user}` };
      continue;
    }
    const raw = typed[input.name];
    if (raw === undefined || raw === '') {
      if (input.default !== undefined) values[input.name] = input.default;
      else if (input.required) return { error: `“${input.title}” is required` };
      continue;
    }
    switch (input.type) {
      case 'boolean':
        values[input.name] = raw === true || raw === 'true';
        break;
      case 'integer': {
        const n = Number(raw);
        if (!Number.isInteger(n)) return { error: `“${input.title}” must be a whole number` };
        values[input.name] = n;
        break;
      }
      case 'slack#/types/timestamp': {
        const ms = Date.parse(String(raw));
        if (Number.isNaN(ms)) return { error: `“${input.title}” must be a date and time` };
        values[input.name] = Math.floor(ms / 1000);
        break;
      }
      case 'array':
        values[input.name] = String(raw)
          .split(/[\s,]+/)
          .filter(Boolean);
        break;
      default:
        values[input.name] = String(raw);
    }
  }
  return { values };
}

/** The element of an input, actions or section block of a view, by block and action id. */
function elementOf(view: Json, blockId: string, actionId: string): Json | undefined {
  const block = ((view.blocks ?? []) as Json[]).find((b) => b.block_id === blockId);
  const elements = [block?.element, block?.accessory, ...((block?.elements ?? []) as Json[])] as Array<
    Json | undefined
  >;
  return elements.find((e) => e?.action_id === actionId);
}

function viewOf(entry: ModalEntry): Json {
  return { ...entry.view, id: entry.viewId, hash: entry.hash };
}

function userName(id: string): string {
  return (personById(id)?.name ?? id).split(' ')[0]?.toLowerCase() ?? id;
}

function userObject(id: string): Json {
  return { id, username: userName(id), name: userName(id), team_id: TEAM_ID };
}

function channelName(id: string): string {
  return CHANNELS.find((c) => c.id === id)?.name ?? 'directmessage';
}

function actionTs(): string {
  return `${(Date.now() / 1000).toFixed(6)}`;
}

function eventCallback(event: Json): Json {
  return {
    token: 'sandbox-verification-token',
    team_id: TEAM_ID,
    api_app_id: TEST_APP_ID,
    event: { event_ts: actionTs(), ...event },
    type: 'event_callback',
    event_id: `Ev${randomUUID().replace(/-/g, '').slice(0, 12).toUpperCase()}`,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [{ team_id: TEAM_ID, user_id: APP_USER_ID, is_bot: true }],
  };
}

/** A view as Slack puts it in an interaction payload: the app's view with its state and Slack's ids. */
function asSent(
  view: Record<string, any>,
  { type, values, rootViewId }: { type: 'home' | 'modal'; values: unknown; rootViewId: string },
): Record<string, any> {
  return {
    ...view,
    team_id: TEAM_ID,
    type,
    state: { values },
    root_view_id: rootViewId,
    app_id: TEST_APP_ID,
    bot_id: 'B0BOT0001',
  };
}
