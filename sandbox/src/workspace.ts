import { viewProblems } from './block-kit-limits.js';
import type { FakeSlack, RecordedCall, SlackTraffic } from './fake-slack.js';
import { APP_USER_ID, CHANNELS, PEOPLE, appDmId, personById } from './people.js';
import { asText } from './as-text.js';

/*
 * What the sandbox's workspace holds, as Slack's clients would show it to each person: the conversations
 * and their messages (posted by people, by the app through the Web API or through response URLs), each
 * person's modal stack and Home tab, their notices (what Slack would show them when an app breaks a rule),
 * the rule violations for everyone, and the workflow runs. It is built from what the app sends to the
 * stand-in (watched through FakeSlack.watchers) and from what people do on the page.
 */

export type Json = Record<string, any>;

export interface SharedFile {
  id: string;
  name: string;
  title: string;
  size: number;
}

export interface SandboxMessage {
  ts: string;
  channel: string;
  /** A person's id, or the app's bot user id. */
  from: string;
  text?: string;
  blocks?: Json[];
  threadTs?: string;
  /** Seen only by this person (chat.postEphemeral, response URLs, command answers). */
  ephemeralFor?: string;
  file?: SharedFile;
  /** Updated in place at least once (chat.update, replace_original). */
  edited?: boolean;
  at: number;
}

export interface ModalEntry {
  viewId: string;
  view: Json;
  hash: string;
  errors?: Record<string, string>;
  /** A submission or click is being handled: the page shows Slack's spinner. */
  busy?: boolean;
}

export interface Notice {
  id: number;
  at: number;
  text: string;
}

export interface Violation {
  id: number;
  at: number;
  rule: string;
  detail: string;
}

export interface WorkflowRun {
  executionId: string;
  callbackId: string;
  title: string;
  user: string;
  inputs: Json;
  state: 'running' | 'completed' | 'failed';
  outputs?: Json;
  error?: string;
  startedAt: number;
  endedAt?: number;
}

/** Where a response_url posts: the conversation, the person it answers, and the message it came from. */
export interface ResponseTarget {
  channel: string;
  user: string;
  sourceTs?: string;
  uses: number;
}

interface Trigger {
  user: string;
  issuedAt: number;
  /** What the person did (for the violation text). */
  origin: string;
}

const MAX_MESSAGES = 300;
const MODAL_STACK_MAX = 3;
const RESPONSE_URL_USES = 5;

export class Workspace {
  readonly messages = new Map<string, SandboxMessage[]>();
  readonly modals = new Map<string, ModalEntry[]>();
  readonly homes = new Map<string, { view: Json; hash: string }>();
  readonly notices = new Map<string, Notice[]>();
  readonly violations: Violation[] = [];
  readonly runs = new Map<string, WorkflowRun>();
  readonly triggers = new Map<string, Trigger>();
  readonly responseTargets = new Map<string, ResponseTarget>();
  /** Bumped at every change; the page refetches its state when it moves. */
  version = 0;
  private counter = 0;
  private readonly listeners = new Set<() => void>();
  private changeQueued = false;

  constructor(private readonly slack: FakeSlack) {
    for (const channel of CHANNELS) this.messages.set(channel.id, []);
    for (const person of PEOPLE) this.messages.set(appDmId(person.id), []);
    slack.watchers.add((traffic) => this.observe(traffic));
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Marks a change; listeners hear of it once per turn of the event loop, however many changes it had. */
  changed(): void {
    this.version += 1;
    if (this.changeQueued) return;
    this.changeQueued = true;
    setImmediate(() => {
      this.changeQueued = false;
      for (const listener of this.listeners) listener();
    });
  }

  nextTs(): string {
    this.counter += 1;
    // The stand-in numbers its own messages from 1; the sandbox's from 900000, so the two never meet.
    return `${Math.floor(Date.now() / 1000)}.${String(900_000 + this.counter).padStart(6, '0')}`;
  }

  trigger(user: string, origin: string): string {
    const id = this.slack.triggerId();
    this.triggers.set(id, { user, issuedAt: Date.now(), origin });
    return id;
  }

  responseUrl(target: Omit<ResponseTarget, 'uses'>): string {
    const url = this.slack.responseUrl();
    this.responseTargets.set(url.slice(url.lastIndexOf('/') + 1), { ...target, uses: 0 });
    return url;
  }

  post(message: Omit<SandboxMessage, 'ts' | 'at'> & { ts?: string }): SandboxMessage {
    const full: SandboxMessage = { ...message, ts: message.ts ?? this.nextTs(), at: Date.now() };
    const list = this.messages.get(full.channel) ?? [];
    list.push(full);
    if (list.length > MAX_MESSAGES) list.splice(0, list.length - MAX_MESSAGES);
    this.messages.set(full.channel, list);
    this.changed();
    return full;
  }

  findMessage(channel: string, ts: string): SandboxMessage | undefined {
    return this.messages.get(channel)?.find((m) => m.ts === ts);
  }

  notify(user: string, text: string): void {
    const list = this.notices.get(user) ?? [];
    list.push({ id: ++this.counter, at: Date.now(), text });
    if (list.length > 20) list.shift();
    this.notices.set(user, list);
    this.changed();
  }

  dismissNotice(user: string, id: number): void {
    const list = this.notices.get(user);
    if (list)
      this.notices.set(
        user,
        list.filter((n) => n.id !== id),
      );
    this.changed();
  }

  violation(rule: string, detail: string): void {
    this.violations.push({ id: ++this.counter, at: Date.now(), rule, detail });
    if (this.violations.length > 50) this.violations.shift();
    this.changed();
  }

  modalStack(user: string): ModalEntry[] {
    const stack = this.modals.get(user) ?? [];
    this.modals.set(user, stack);
    return stack;
  }

  /** The person whose modal stack holds this view, and where. */
  findModal(viewId: string): { user: string; stack: ModalEntry[]; index: number } | undefined {
    for (const [user, stack] of this.modals) {
      const index = stack.findIndex((m) => m.viewId === viewId);
      if (index >= 0) return { user, stack, index };
    }
    return undefined;
  }

  closeModals(user: string, from: number): void {
    const stack = this.modalStack(user);
    for (const entry of stack.splice(from)) this.slack.forgetView(entry.viewId);
    this.changed();
  }

  // ---- What the app sent to the stand-in -------------------------------------------------------------

  private observe(traffic: SlackTraffic): void {
    if (traffic.kind === 'response') return this.observeResponse(traffic);
    const { call } = traffic;
    const answer: Json = call.answer ?? {};
    if (answer.ok !== true) return this.observeFailure(call, answer);
    const params = call.params;
    switch (call.method) {
      case 'chat.postMessage': {
        const channel = String(answer.channel);
        this.post({
          ts: String(answer.ts),
          channel,
          from: APP_USER_ID,
          ...(typeof params.text === 'string' ? { text: params.text } : {}),
          ...(Array.isArray(params.blocks) ? { blocks: params.blocks as Json[] } : {}),
          ...(params.thread_ts ? { threadTs: asText(params.thread_ts) } : {}),
        });
        break;
      }
      case 'chat.update': {
        const message = this.findMessage(String(params.channel), String(params.ts));
        if (message) {
          message.text = typeof params.text === 'string' ? params.text : message.text;
          if (Array.isArray(params.blocks)) message.blocks = params.blocks as Json[];
          message.edited = true;
          this.changed();
        }
        break;
      }
      case 'chat.postEphemeral':
        this.post({
          channel: this.conversationFor(String(params.channel), String(params.user)),
          from: APP_USER_ID,
          ephemeralFor: String(params.user),
          ...(typeof params.text === 'string' ? { text: params.text } : {}),
          ...(Array.isArray(params.blocks) ? { blocks: params.blocks as Json[] } : {}),
          ...(params.thread_ts ? { threadTs: asText(params.thread_ts) } : {}),
        });
        break;
      case 'views.open':
      case 'views.push':
        this.openModal(call, answer);
        break;
      case 'views.update': {
        const found = this.findModal(String(answer.view?.id ?? params.view_id));
        if (found) {
          const entry = found.stack[found.index];
          if (entry) {
            entry.view = params.view as Json;
            entry.hash = String(answer.view?.hash);
            delete entry.errors;
          }
          this.changed();
        }
        break;
      }
      case 'views.publish':
        this.homes.set(String(params.user_id), { view: params.view as Json, hash: String(answer.view?.hash) });
        this.changed();
        break;
      case 'files.completeUploadExternal':
        this.shareFiles(params);
        break;
      case 'functions.completeSuccess':
      case 'functions.completeError':
        this.endRun(call);
        break;
      default:
        break;
    }
  }

  /** A user id as the channel means the DM with the app (as chat.postMessage does). */
  private conversationFor(channel: string, user: string): string {
    if (/^[UW]/.test(channel)) return appDmId(channel);
    return this.messages.has(channel) ? channel : appDmId(user);
  }

  private openModal(call: RecordedCall, answer: Json): void {
    const params = call.params;
    const trigger = this.triggers.get(String(params.trigger_id));
    if (!trigger) return;
    const stack = this.modalStack(trigger.user);
    if (call.method === 'views.open' && stack.length > 0) this.closeModals(trigger.user, 0);
    if (call.method === 'views.push' && stack.length >= MODAL_STACK_MAX) {
      this.violation(
        'Modal stack',
        `views.push would make ${stack.length + 1} views: Slack keeps at most ${MODAL_STACK_MAX} (push_limit_reached)`,
      );
      return;
    }
    stack.push({ viewId: String(answer.view?.id), view: params.view as Json, hash: String(answer.view?.hash) });
    this.changed();
  }

  private shareFiles(params: Json): void {
    const channel = String(params.channel_id ?? '');
    for (const file of (params.files ?? []) as Array<{ id?: string; title?: string }>) {
      const upload = this.slack.uploads.get(String(file.id));
      if (!upload) continue;
      this.post({
        channel: this.conversationFor(channel, ''),
        from: APP_USER_ID,
        ...(typeof params.initial_comment === 'string' ? { text: params.initial_comment } : {}),
        ...(params.thread_ts ? { threadTs: asText(params.thread_ts) } : {}),
        file: {
          id: upload.fileId,
          name: upload.filename,
          title: file.title ?? upload.filename,
          size: upload.content?.length ?? upload.length,
        },
      });
    }
  }

  private endRun(call: RecordedCall): void {
    const run = this.runs.get(String(call.params.function_execution_id));
    if (!run) return;
    const execution = this.slack.executions.get(run.executionId);
    run.state = execution?.state ?? run.state;
    if (execution?.outputs) run.outputs = execution.outputs;
    if (execution?.error) run.error = execution.error;
    run.endedAt = Date.now();
    this.changed();
  }

  /** Slack refused a call: a broken rule is shown to everyone; an ordinary error only in the log panel. */
  private observeFailure(call: RecordedCall, answer: Json): void {
    const error = String(answer.error ?? 'error');
    const params = call.params;
    if (error === 'invalid_blocks' || error === 'invalid_arguments') {
      const problems = (answer.errors ?? answer.response_metadata?.messages ?? []) as string[];
      const target = VIEW_METHODS.has(call.method) ? 'view' : 'message';
      this.violation(
        'Block Kit limits',
        `${call.method} refused (${error}): the ${target} breaks Slack's rules: ${problems.slice(0, 5).join('; ')}`,
      );
    } else if (error === 'expired_trigger_id' || error === 'exchanged_trigger_id' || error === 'invalid_trigger_id') {
      const trigger = this.triggers.get(String(params.trigger_id));
      const age = trigger ? `${((call.at - trigger.issuedAt) / 1000).toFixed(1)} s after` : 'for';
      this.violation(
        'trigger_id',
        `${call.method} answered ${error}: it came ${age} ${trigger?.origin ?? 'the interaction'} (a trigger_id works once, within 3 s)`,
      );
    }
  }

  /** What Slack does with a post to a response_url: ephemeral by default, in_channel, or the source replaced. */
  private observeResponse(traffic: Extract<SlackTraffic, { kind: 'response' }>): void {
    const target = this.responseTargets.get(traffic.id);
    if (!target) return;
    target.uses += 1;
    if (target.uses > RESPONSE_URL_USES)
      this.violation(
        'response_url',
        `a response_url was used ${target.uses} times (Slack allows ${RESPONSE_URL_USES})`,
      );
    if (traffic.problems.length > 0) {
      this.violation(
        'Block Kit limits',
        `a response_url post was refused (invalid_blocks): ${traffic.problems.slice(0, 5).join('; ')}`,
      );
      return;
    }
    if (traffic.status !== 200) return;
    const body = traffic.body;
    const content = {
      ...(typeof body.text === 'string' ? { text: body.text } : {}),
      ...(Array.isArray(body.blocks) ? { blocks: body.blocks as Json[] } : {}),
    };
    const source = target.sourceTs ? this.findMessage(target.channel, target.sourceTs) : undefined;
    if (body.delete_original === true && source) {
      const list = this.messages.get(target.channel) ?? [];
      list.splice(list.indexOf(source), 1);
      this.changed();
      return;
    }
    if (body.replace_original === true && source) {
      delete source.text;
      delete source.blocks;
      Object.assign(source, content, { edited: true });
      this.changed();
      return;
    }
    const inChannel = body.response_type === 'in_channel';
    this.post({
      channel: target.channel,
      from: APP_USER_ID,
      ...content,
      ...(inChannel ? {} : { ephemeralFor: target.user }),
      ...(typeof body.thread_ts === 'string' ? { threadTs: body.thread_ts } : {}),
    });
  }

  // ---- What a person sees ----------------------------------------------------------------------------

  conversationsOf(user: string): string[] {
    return [...CHANNELS.map((c) => c.id), appDmId(user)];
  }

  visibleMessages(user: string, channel: string): SandboxMessage[] {
    if (channel.startsWith('D') && channel !== appDmId(user)) return [];
    return (this.messages.get(channel) ?? []).filter((m) => !m.ephemeralFor || m.ephemeralFor === user);
  }

  /** Checks a view the app acknowledged with (response_action update or push), as Slack does. */
  static viewProblems(view: unknown): string[] {
    return viewProblems(view);
  }

  personName(id: string): string | undefined {
    if (id === APP_USER_ID) return 'Mintlink';
    return personById(id)?.name;
  }
}

const VIEW_METHODS = new Set(['views.open', 'views.update', 'views.push', 'views.publish']);
