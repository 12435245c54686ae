import type { AckFn, GlobalShortcut, MessageShortcut, RespondArguments, ViewResponseAction } from '@slack/bolt';
import type { Logger } from '../../ops/telemetry/create-logger.js';
import { noteOutcome, requestOf } from '../../ops/telemetry/request-context.js';
import { noticeModal } from '../../blocks/notice-modal.js';
import { respondSafely, tellUser } from '../../blocks/respond-safely.js';
import { updateModal } from '../../blocks/update-modal.js';
import type { Store } from '../../store/store.js';
import { DECLARED_KINDS, type Declarations, type Declared, idOf } from './declarations.js';
import { clickKey, firstDelivery, submissionKey } from './deliver-once.js';
import { AlreadyHandled } from './request-ended.js';
import type {
  ButtonArgs,
  ButtonRequest,
  CommandArgs,
  FormArgs,
  ListenerOfKind,
  ListenersOf,
  OptionsArgs,
  OptionsRequest,
  ShortcutArgs,
} from './requests.js';
import { type PipelineDeps, type Routes, addRoute } from './routes.js';
import { type Settle, type Tell, quietly } from './settle.js';
import { stepListener } from './step-listener.js';

/** Listeners of each kind by the key of their entry, whatever the declarations. */
type ListenerTables = { [Kind in keyof ListenerOfKind]: Record<string, ListenerOfKind[Kind]> };

interface DeclaredDeps {
  logger: Logger;
  store: Pick<Store, 'onceKeys'>;
  slackCalls: PipelineDeps['slackCalls'];
  routes: Routes;
  settle: Settle;
}

/**
 * Routes each declared entry to its listener, wrapped for its kind, after checking that every entry has a
 * listener and every listener an entry (the types ask the same; this catches what the types cannot, such as a
 * spread object).
 */
export function registerDeclared<D extends Declarations>(
  deps: DeclaredDeps,
  declarations: Declared<D>,
  listeners: ListenersOf<D>,
): void {
  const given: Partial<ListenerTables> = listeners;
  const problems: string[] = [];
  for (const kind of DECLARED_KINDS) {
    const entries: Record<string, Parameters<typeof idOf>[0]> = declarations[kind] ?? {};
    const bound = given[kind] ?? {};
    for (const [key, entry] of Object.entries(entries))
      if (typeof bound[key] !== 'function')
        problems.push(`${kind}.${key} ("${idOf(entry)}") is declared but has no listener`);
    for (const key of Object.keys(bound))
      if (!(key in entries)) problems.push(`${kind}.${key} has a listener but is not declared`);
  }
  for (const kind of Object.keys(given))
    if (!DECLARED_KINDS.some((known) => known === kind)) problems.push(`"${kind}" is not a kind of declaration`);
  if (problems.length > 0) throw new Error(`${declarations.capability}: ${problems.join('; ')}`);

  const { routes } = deps;
  const l = given;
  for (const [key, c] of Object.entries(declarations.commands ?? {}))
    routes.commands.push({ name: c.matches, route: command(deps, pick(l.commands, key)) });
  for (const [key, s] of Object.entries(declarations.shortcuts ?? {}))
    addRoute(routes.shortcuts, s.callbackId, shortcut(deps, pick(l.shortcuts, key)));
  for (const [key, s] of Object.entries(declarations.messageShortcuts ?? {}))
    addRoute(routes.messageShortcuts, s.callbackId, messageShortcut(deps, pick(l.messageShortcuts, key)));
  for (const [key, b] of Object.entries(declarations.buttons ?? {}))
    addRoute(routes.buttons, b.actionId, button(deps, pick(l.buttons, key), { once: b.once }));
  for (const [key, f] of Object.entries(declarations.forms ?? {}))
    addRoute(routes.forms, f.callbackId, form(deps, f.title, pick(l.forms, key)));
  for (const [key, o] of Object.entries(declarations.options ?? {}))
    addRoute(routes.options, o.actionId, options(deps, pick(l.options, key)));
  for (const [key, step] of Object.entries(declarations.steps ?? {}))
    addRoute(
      routes.steps,
      step.callbackId,
      stepListener(
        { ...deps, orgWorkspaces: routes.orgWorkspaces, workspaceOf: routes.workspaceOf },
        step,
        pick(l.steps, key),
      ),
    );
}

function pick<Listener>(listeners: Record<string, Listener> | undefined, key: string): Listener {
  const listener = listeners?.[key];
  if (!listener) throw new Error(`no listener for "${key}"`); // checked above
  return listener;
}

/** A command: told in its ephemeral ack when the listener has not acked yet, else through its response_url. */
function command({ logger, routes, settle }: DeclaredDeps, listener: ListenerOfKind['commands']) {
  return async ({ next: _next, ...bolt }: CommandArgs) => {
    const args = { ...bolt, teamId: routes.workspaceOf(bolt.context, bolt.body) };
    let acked = false;
    const ack: AckFn<string | RespondArguments> = (response) => {
      acked = true;
      return args.ack(response);
    };
    const recipient = { client: args.client, channelId: args.command.channel_id, userId: args.command.user_id };
    const tell: Tell = (text, blocks) => {
      const answer = { response_type: 'ephemeral' as const, text, ...(blocks ? { blocks } : {}) };
      if (!acked) return quietly(logger, ack(answer));
      return quietly(logger, respondSafely(args.respond, answer, { ...recipient, logger }, text));
    };
    await settle(args.context, args.teamId, tell, () => listener({ ...args, ack }));
    if (!acked) await ack(); // a listener that forgot: Slack shows nothing rather than an error
  };
}

/** A click: acknowledged at once; with `once`, a second delivery of the same click does nothing. */
function button(
  { logger, store, routes, settle }: DeclaredDeps,
  listener: ListenerOfKind['buttons'],
  opts: { once?: boolean },
) {
  return async ({ next: _next, ack, ...bolt }: ButtonArgs) => {
    await ack();
    const args = { ...bolt, teamId: routes.workspaceOf(bolt.context, bolt.body) };
    // Claimed once the pipeline has accepted the click's workspace: a refused click leaves no once-key.
    await settle(args.context, args.teamId, tellClicker(args, logger), async () => {
      if (opts.once && !(await firstDelivery(store, clickKey(args.body, args.teamId), args.teamId)))
        throw new AlreadyHandled();
      return listener(args);
    });
  };
}

/** A note only the clicker sees: ephemeral in the conversation, or a DM for a click on Home or in a modal. */
function tellClicker(args: ButtonRequest, logger: Logger): Tell {
  const recipient = { client: args.client, channelId: args.body.channel?.id, userId: args.body.user.id, logger };
  return (text) =>
    respondSafely(args.respond, { response_type: 'ephemeral', replace_original: false, text }, recipient, text);
}

/**
 * A submission: the listener's `ack` marks inline errors as invalid input, and after any other answer claims
 * the submission, so a second delivery ends there. Told by replacing the modal with a notice (before the ack)
 * or updating it (after).
 */
function form({ logger, store, routes, settle }: DeclaredDeps, title: string, listener: ListenerOfKind['forms']) {
  return async ({ next: _next, ...bolt }: FormArgs) => {
    const args = { ...bolt, teamId: routes.workspaceOf(bolt.context, bolt.body) };
    let acked = false;
    const answer = (response?: ViewResponseAction) => {
      acked = true;
      return args.ack(response);
    };
    const ack: AckFn<ViewResponseAction> = async (response) => {
      await answer(response);
      if (response?.response_action === 'errors') {
        noteOutcome(requestOf(args.context), 'invalid_input');
        return;
      }
      // The same submission delivered again (a proxy's retry, a double press) stops here.
      if (!(await firstDelivery(store, submissionKey(args.body, args.teamId), args.teamId))) throw new AlreadyHandled();
    };
    const tell: Tell = (text) => {
      const view = noticeModal(args.view.title?.text || title, text);
      if (!acked) return quietly(logger, answer({ response_action: 'update', view }));
      return updateModal(args.client, args.view.id, view, logger);
    };
    await settle(args.context, args.teamId, tell, () => listener({ ...args, ack }));
    if (!acked) await answer(); // a listener that forgot: the modal closes rather than spins
  };
}

/** A global shortcut: acknowledged at once; told in a DM (there is no conversation). */
function shortcut({ logger, routes, settle }: DeclaredDeps, listener: ListenerOfKind['shortcuts']) {
  return async ({ next: _next, ack, ...bolt }: ShortcutArgs<GlobalShortcut>) => {
    await ack();
    const args = { ...bolt, teamId: routes.workspaceOf(bolt.context, bolt.body) };
    const tell: Tell = (text) =>
      tellUser({ client: args.client, channelId: undefined, userId: args.body.user.id, logger }, text);
    await settle(args.context, args.teamId, tell, () => listener(args));
  };
}

/** A message shortcut: acknowledged at once; told in the conversation of the message. */
function messageShortcut({ logger, routes, settle }: DeclaredDeps, listener: ListenerOfKind['messageShortcuts']) {
  return async ({ next: _next, ack, ...bolt }: ShortcutArgs<MessageShortcut>) => {
    await ack();
    const args = { ...bolt, teamId: routes.workspaceOf(bolt.context, bolt.body) };
    const recipient = { client: args.client, channelId: args.body.channel.id, userId: args.body.user.id, logger };
    await settle(
      args.context,
      args.teamId,
      (text) => tellUser(recipient, text),
      () => listener(args),
    );
  };
}

/** An external select's options: an empty list when the listener gives none. */
function options({ routes, settle }: DeclaredDeps, listener: ListenerOfKind['options']) {
  return async ({ next: _next, ...bolt }: OptionsArgs) => {
    const args = { ...bolt, teamId: routes.workspaceOf(bolt.context, bolt.body) };
    let acked = false;
    const ack: OptionsRequest['ack'] = (response) => {
      acked = true;
      return args.ack(response);
    };
    // The person sees an empty list; there is nothing else to tell them in.
    await settle(
      args.context,
      args.teamId,
      () => Promise.resolve(),
      () => listener({ ...args, ack }),
    );
    if (!acked) await args.ack({ options: [] });
  };
}
