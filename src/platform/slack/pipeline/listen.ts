import type {
  AckFn,
  AllMiddlewareArgs,
  AnyMiddlewareArgs,
  App,
  BlockAction,
  Context,
  ButtonAction,
  GlobalShortcut,
  MessageShortcut,
  Middleware,
  RespondArguments,
  SlackActionMiddlewareArgs,
  SlackCommandMiddlewareArgs,
  SlackEventMiddlewareArgs,
  SlackOptionsMiddlewareArgs,
  SlackShortcut,
  SlackShortcutMiddlewareArgs,
  SlackViewMiddlewareArgs,
  ViewResponseAction,
  ViewSubmitAction,
} from '@slack/bolt';
import type { KnownBlock } from '@slack/types';
import { isDatabaseError } from '../../ops/lifecycle/database-error.js';
import type { Logger } from '../../ops/telemetry/create-logger.js';
import { type Outcome, noteOutcome, requestLogFields, requestOf } from '../../ops/telemetry/request-context.js';
import { noticeModal } from '../../blocks/notice-modal.js';
import { respondSafely, tellUser } from '../../blocks/respond-safely.js';
import { updateModal } from '../../blocks/update-modal.js';
import type { Store } from '../../store/store.js';
import { clickKey, eventKey, firstDelivery, submissionKey } from './deliver-once.js';
import { AlreadyHandled, RequestEnded, refused } from './request-ended.js';
import { NOT_SERVED_TEXT, OrgWorkspaceCheck } from './org-workspace.js';
import { requestWorkspace } from './request-workspace.js';
import { type StepArgs, type StepResult, type StepRun, stepListener } from './step-listener.js';
import { DECLARED_KINDS, type Declarations, type Declared, idOf } from './declarations.js';
import type { OrgWorkspaces, Uninstall } from '../../../tenancy/workspaces/workspaces.js';

/**
 * How a listener's work ended when it did not throw: nothing means it went as asked; an outcome says
 * otherwise (the Mint service failed and the form shows why, say).
 */
export type Ended = Outcome | undefined | void;

type Bolt<Args> = Args & AllMiddlewareArgs;
/**
 * Every request carries the workspace it is for, decided once by the pipeline (request-workspace.ts): the
 * installation's, which is not always the person's (Slack Connect). Rows are read and changed in it only.
 */
export interface InWorkspace {
  teamId: string;
}
/** A slash command; `ack` must be called within Slack's 3 seconds, before any slow work. */
export type CommandRequest = Omit<Bolt<SlackCommandMiddlewareArgs>, 'next'> & InWorkspace;
/** A button click, already acknowledged (and, with `once`, the first delivery of it). */
export type ButtonRequest = Omit<Bolt<SlackActionMiddlewareArgs<BlockAction<ButtonAction>>>, 'ack' | 'next'> &
  InWorkspace;
/**
 * A modal submitted. `ack` answers Slack (inline errors, update, push, clear); after any ack but inline errors,
 * a second delivery of the same submission ends inside `ack`, so the code after it runs once.
 */
export type FormRequest = Omit<Bolt<SlackViewMiddlewareArgs<ViewSubmitAction>>, 'next'> & InWorkspace;
/** A global or message shortcut, already acknowledged: its trigger_id is good for 3 seconds. */
export type ShortcutRequest<Shortcut extends GlobalShortcut | MessageShortcut> = Omit<
  Bolt<SlackShortcutMiddlewareArgs<Shortcut>>,
  'ack' | 'next'
> &
  InWorkspace;
export type HomeOpenedRequest = Omit<Bolt<SlackEventMiddlewareArgs<'app_home_opened'>>, 'next'> & InWorkspace;
/** A select that loads its options from the app (an external select); answered with no options if it fails. */
export type OptionsRequest = Omit<Bolt<SlackOptionsMiddlewareArgs<'block_suggestion'>>, 'next'> & InWorkspace;

/**
 * The one way a capability listens to Slack. Each method registers a typed listener, reached through Bolt's
 * `app.action` / `app.view` / `app.shortcut` / `app.options` / `app.command` / `app.event` (see routesOf) and
 * wrapped in the request pipeline, which does, once and for every request, what no listener should repeat:
 * - the outcome (access log, metrics): read from the ack (inline errors are invalid input), from a
 *   `RequestEnded` thrown (refused, invalid input, upstream failure) and from what the work returns;
 * - once-only delivery: a click (`once`) or a submission delivered twice does the work once, on any replica;
 * - telling the person when something failed, in the way the request allows, and logging it for the operator;
 * - acknowledging clicks and shortcuts at once.
 * Busy answers come before any of this, from the admission middleware; secrets are scrubbed where every
 * log line and Slack call passes; the listener's `client` is the one Bolt authorized for the request.
 */
/** The listener each kind of declared entry is given (declarations.ts). */
export interface ListenerOfKind {
  commands: (request: CommandRequest) => Promise<Ended>;
  shortcuts: (request: ShortcutRequest<GlobalShortcut>) => Promise<Ended>;
  messageShortcuts: (request: ShortcutRequest<MessageShortcut>) => Promise<Ended>;
  buttons: (request: ButtonRequest) => Promise<Ended>;
  forms: (request: FormRequest) => Promise<Ended>;
  options: (request: OptionsRequest) => Promise<Ended>;
  /** A custom workflow step: see step-listener.ts. */
  steps: (run: StepRun) => Promise<StepResult>;
}

/** Listeners of each kind by the key of their entry, whatever the declarations. */
type ListenerTables = { [Kind in keyof ListenerOfKind]: Record<string, ListenerOfKind[Kind]> };

/** One listener for each entry a capability declared, of each kind it declared, and no other. */
export type ListenersOf<D extends Declarations> = {
  [Kind in keyof ListenerOfKind as Kind extends keyof D ? Kind : never]: {
    [Id in keyof D[Kind]]: ListenerOfKind[Kind];
  };
};

/**
 * The one way a capability listens to Slack. `declared` registers a typed listener for each entry of the
 * capability's declarations (declarations.ts), reached through Bolt's `app.action` / `app.view` /
 * `app.shortcut` / `app.command` / `app.options` / `app.function` (see routesOf) and wrapped in the request
 * pipeline, which does, once and for every request, what no listener should repeat:
 * - the outcome (access log, metrics): read from the ack (inline errors are invalid input), from a
 *   `RequestEnded` thrown (refused, invalid input, upstream failure) and from what the work returns;
 * - once-only delivery: a click (declared `once`) or a submission delivered twice does the work once, on any
 *   replica;
 * - telling the person when something failed, in the way the request allows, and logging it for the operator;
 * - acknowledging clicks and shortcuts at once.
 * Busy answers come before any of this, from the admission middleware; secrets are scrubbed where every
 * log line and Slack call passes; the listener's `client` is the one Bolt authorized for the request.
 */
export interface Listen {
  /**
   * The capability's listeners, one per declared entry. A form's notice, when the request ends in a refusal
   * or failure, keeps the title of the modal the person submitted; the declared `title` is for a view that
   * came back without one. An entry without a listener, or a listener for no entry, fails here, at start.
   */
  declared<D extends Declarations>(declarations: Declared<D>, listeners: ListenersOf<D>): void;
  homeOpened(listener: (request: HomeOpenedRequest) => Promise<void>): void;
  /**
   * The app was removed from a workspace (`app_uninstalled`) or its bot token revoked (`tokens_revoked` naming
   * the bot). Slack sends these without a token to authorize; nobody waits on the answer.
   */
  uninstalled(listener: (uninstall: Uninstall) => Promise<void>): void;
  /**
   * Workspaces of an Enterprise Grid organization left its org-wide installation (`team_access_revoked`, or
   * `app_uninstalled_team` naming this app and a workspace), or joined it (`team_access_granted`). The org's
   * installation stays, for its other workspaces.
   */
  orgWorkspaces(change: 'left' | 'joined', listener: (workspaces: OrgWorkspaces) => Promise<void>): void;
}

/** How each kind of declared entry is registered: the pipeline's wrappers below. */
interface Registrars {
  command(name: RegExp, listener: ListenerOfKind['commands']): void;
  button(actionId: string, listener: ListenerOfKind['buttons'], options: { once?: boolean }): void;
  form(callbackId: string, title: string, listener: ListenerOfKind['forms']): void;
  shortcut(callbackId: string, listener: ListenerOfKind['shortcuts']): void;
  messageShortcut(callbackId: string, listener: ListenerOfKind['messageShortcuts']): void;
  options(actionId: string, listener: ListenerOfKind['options']): void;
  step(callbackId: string, thing: string, work: ListenerOfKind['steps']): void;
}

const declaredInApp = new WeakMap<App, Declared<Declarations>[]>();

/** Every declaration registered on the app so far (the start-up check's and the manifest test's). */
export function declarationsOf(app: App): readonly Declared<Declarations>[] {
  return declaredInApp.get(app) ?? [];
}

/** Tells the person how their request ended; never throws (a failure to tell is logged). */
type Tell = (text: string, blocks?: KnownBlock[]) => Promise<unknown>;

type OptionsArgs = Bolt<SlackOptionsMiddlewareArgs<'block_suggestion'>>;
type ButtonArgs = Bolt<SlackActionMiddlewareArgs<BlockAction<ButtonAction>>>;
type FormArgs = Bolt<SlackViewMiddlewareArgs<ViewSubmitAction>>;
type ShortcutArgs<Shortcut extends SlackShortcut> = Bolt<SlackShortcutMiddlewareArgs<Shortcut>>;

/** The app's listeners of each kind, by action_id, callback_id or event type. */
interface Routes {
  buttons: Map<string, (args: ButtonArgs) => Promise<void>>;
  forms: Map<string, (args: FormArgs) => Promise<void>>;
  shortcuts: Map<string, (args: ShortcutArgs<GlobalShortcut>) => Promise<void>>;
  messageShortcuts: Map<string, (args: ShortcutArgs<MessageShortcut>) => Promise<void>>;
  options: Map<string, (args: OptionsArgs) => Promise<void>>;
  /** Events (but workflow steps' function_executed), by type. */
  events: Map<string, (args: EventArgs) => Promise<void>>;
  /** Workflow steps, by the step's callback_id. */
  steps: Map<string, (args: StepArgs) => Promise<void>>;
  /** Whether an org-wide installation serves the workspace a request names (one per app: its cache). */
  orgWorkspaces: OrgWorkspaceCheck;
}

const routesOfApp = new WeakMap<App, Routes>();

/**
 * One Bolt listener per kind of request, which finds the capability's listener by its id (or event type).
 * Bolt runs every registered listener's matchers on every request, each in a middleware chain of its own
 * (an args object, closures and promises apiece); with one per handler (about forty, and then sixteen) that
 * was the largest single cost of a request in `npm run bench` (see docs/benchmark.md). A click or submission
 * nobody listens to is acknowledged at once rather than left for Slack to time out.
 */
function routesOf(app: App, deps: PipelineDeps): Routes {
  const known = routesOfApp.get(app);
  if (known) return known;
  app.use(eventsOnce(deps));
  const routes: Routes = {
    buttons: new Map(),
    forms: new Map(),
    shortcuts: new Map(),
    messageShortcuts: new Map(),
    options: new Map(),
    events: new Map(),
    steps: new Map(),
    orgWorkspaces: new OrgWorkspaceCheck(deps.store),
  };
  routesOfApp.set(app, routes);
  app.action<BlockAction<ButtonAction>>({ type: 'block_actions' }, (args) =>
    dispatch(routes.buttons.get(args.action.action_id), args, () => args.ack()),
  );
  app.view<ViewSubmitAction>({ type: 'view_submission' }, (args) =>
    dispatch(routes.forms.get(args.view.callback_id), args, () => args.ack()),
  );
  app.shortcut<SlackShortcut>({}, (args) => {
    if (isGlobalShortcut(args))
      return dispatch(routes.shortcuts.get(args.shortcut.callback_id), args, () => args.ack());
    if (isMessageShortcut(args))
      return dispatch(routes.messageShortcuts.get(args.shortcut.callback_id), args, () => args.ack());
    return args.ack();
  });
  app.options<'block_suggestion'>({ type: 'block_suggestion' }, (args) =>
    dispatch(routes.options.get(args.options.action_id), args, () => args.ack({ options: [] })),
  );
  // Bolt has acknowledged every event but a step's before any listener runs; a step is acknowledged here at
  // once, as Bolt's app.function does (autoAcknowledge).
  app.event(ANY_EVENT_BUT_STEPS, (args) => dispatch(routes.events.get(args.event.type), args, () => Promise.resolve()));
  app.event('function_executed', async (args) => {
    await args.ack();
    await dispatch(routes.steps.get(args.event.function.callback_id), args, () => Promise.resolve());
  });
  return routes;
}

/** Every event type but function_executed (a workflow step's, which has a listener of its own). */
const ANY_EVENT_BUT_STEPS = /^(?!function_executed$)/;

type EventArgs = Bolt<SlackEventMiddlewareArgs>;
type HomeOpenedArgs = Bolt<SlackEventMiddlewareArgs<'app_home_opened'>>;

function isHomeOpened(args: EventArgs): args is HomeOpenedArgs {
  return args.event.type === 'app_home_opened';
}

function isGlobalShortcut(args: ShortcutArgs<SlackShortcut>): args is ShortcutArgs<GlobalShortcut> {
  return args.shortcut.type === 'shortcut';
}

function isMessageShortcut(args: ShortcutArgs<SlackShortcut>): args is ShortcutArgs<MessageShortcut> {
  return args.shortcut.type === 'message_action';
}

type PipelineDeps = { logger: Logger; store: Pick<Store, 'onceKeys' | 'installations' | 'changes'> };

/**
 * Every event does its work once, whatever Slack delivers again and whichever replica it reaches: the first
 * delivery of an `event_id` claims it for every replica (a once-key in the database, kept far longer than
 * Slack's retries go on), and a later delivery ends here, before any listener: an uninstall, a Home opened, a
 * workflow step, and any event a capability adds.
 */
function eventsOnce(deps: PipelineDeps): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    const key = eventKey(args.body);
    if (!key || (await firstDelivery(deps.store, key, args.context.teamId))) {
      await args.next();
      return;
    }
    deps.logger.info(
      {
        ...requestLogFields(requestOf(args.context)),
        retryNum: args.context.retryNum,
        retryReason: args.context.retryReason,
      },
      'event delivered again; already handled',
    );
    // Bolt leaves a workflow step's ack to its listener: unanswered, Slack would send it yet again.
    if ('ack' in args && typeof args.ack === 'function') await args.ack();
  };
}

function dispatch<Args>(
  route: ((args: Args) => Promise<void>) | undefined,
  args: Args,
  unrouted: () => Promise<void>,
): Promise<void> {
  return route ? route(args) : unrouted();
}

function addRoute<Args>(
  map: Map<string, (args: Args) => Promise<void>>,
  id: string,
  route: (args: Args) => Promise<void>,
) {
  if (map.has(id)) throw new Error(`a listener for "${id}" is registered twice`);
  map.set(id, route);
}

export function listen(app: App, deps: PipelineDeps): Listen {
  const { logger, store } = deps;
  const routes = routesOf(app, deps);

  /**
   * Runs the listener and settles the request's outcome; every way it can end is handled here. A request for
   * `teamId` through an org-wide installation that does not serve it (org-workspace.ts) ends refused first.
   */
  async function settle(
    context: Context,
    teamId: string | undefined,
    tell: Tell,
    run: () => Promise<Ended>,
  ): Promise<void> {
    const request = requestOf(context);
    try {
      if (teamId !== undefined && !(await routes.orgWorkspaces.serves(context, teamId))) {
        logger.warn(
          { ...requestLogFields(request), team: teamId, enterprise: context.enterpriseId },
          'request through an org-wide installation from a workspace it does not serve: refused',
        );
        throw refused(NOT_SERVED_TEXT);
      }
      const outcome = await run();
      if (outcome) noteOutcome(request, outcome);
    } catch (error) {
      if (error instanceof AlreadyHandled) return;
      if (error instanceof RequestEnded) {
        noteOutcome(request, error.outcome);
        if (error.failure) logger.warn({ ...requestLogFields(request), err: error.failure.cause }, error.failure.log);
        await tell(error.text, error.blocks);
        return;
      }
      noteOutcome(request, 'failed');
      logger.error({ ...requestLogFields(request), err: error }, 'listener failed');
      await tell(unexpectedFailureText(error));
    }
  }

  const quietly = (telling: Promise<unknown>) =>
    telling.catch((error: unknown) => logger.warn({ err: error }, 'could not tell the user how the request ended'));

  const register: Registrars = {
    command(name, listener) {
      app.command(name, async ({ next: _next, ...bolt }) => {
        const args = { ...bolt, teamId: requestWorkspace(bolt.context, bolt.body) };
        let acked = false;
        const ack: AckFn<string | RespondArguments> = (response) => {
          acked = true;
          return args.ack(response);
        };
        const recipient = { client: args.client, channelId: args.command.channel_id, userId: args.command.user_id };
        const tell: Tell = (text, blocks) => {
          const answer = { response_type: 'ephemeral' as const, text, ...(blocks ? { blocks } : {}) };
          if (!acked) return quietly(ack(answer));
          return quietly(respondSafely(args.respond, answer, { ...recipient, logger }, text));
        };
        await settle(args.context, args.teamId, tell, () => listener({ ...args, ack }));
        if (!acked) await ack(); // a listener that forgot: Slack shows nothing rather than an error
      });
    },

    button(actionId, listener, options) {
      addRoute(routes.buttons, actionId, async ({ next: _next, ack, ...bolt }) => {
        await ack();
        const args = { ...bolt, teamId: requestWorkspace(bolt.context, bolt.body) };
        if (options.once && !(await firstDelivery(store, clickKey(args.body, args.teamId), args.teamId))) return;
        await settle(args.context, args.teamId, tellClicker(args), () => listener(args));
      });
    },

    form(callbackId, title, listener) {
      addRoute(routes.forms, callbackId, async ({ next: _next, ...bolt }) => {
        const args = { ...bolt, teamId: requestWorkspace(bolt.context, bolt.body) };
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
          if (!(await firstDelivery(store, submissionKey(args.body, args.teamId), args.teamId)))
            throw new AlreadyHandled();
        };
        const tell: Tell = (text) => {
          const view = noticeModal(args.view.title?.text || title, text);
          if (!acked) return quietly(answer({ response_action: 'update', view }));
          return updateModal(args.client, args.view.id, view, logger);
        };
        await settle(args.context, args.teamId, tell, () => listener({ ...args, ack }));
        if (!acked) await answer(); // a listener that forgot: the modal closes rather than spins
      });
    },

    shortcut(callbackId, listener) {
      addRoute(routes.shortcuts, callbackId, async ({ next: _next, ack, ...bolt }) => {
        await ack();
        const args = { ...bolt, teamId: requestWorkspace(bolt.context, bolt.body) };
        const tell: Tell = (text) =>
          tellUser({ client: args.client, channelId: undefined, userId: args.body.user.id, logger }, text);
        await settle(args.context, args.teamId, tell, () => listener(args));
      });
    },

    messageShortcut(callbackId, listener) {
      addRoute(routes.messageShortcuts, callbackId, async ({ next: _next, ack, ...bolt }) => {
        await ack();
        const args = { ...bolt, teamId: requestWorkspace(bolt.context, bolt.body) };
        const recipient = { client: args.client, channelId: args.body.channel.id, userId: args.body.user.id, logger };
        await settle(
          args.context,
          args.teamId,
          (text) => tellUser(recipient, text),
          () => listener(args),
        );
      });
    },

    options(actionId, listener) {
      addRoute(routes.options, actionId, async ({ next: _next, ...bolt }) => {
        const args = { ...bolt, teamId: requestWorkspace(bolt.context, bolt.body) };
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
      });
    },

    step(callbackId, thing, work) {
      addRoute(
        routes.steps,
        callbackId,
        stepListener({ store, logger, orgWorkspaces: routes.orgWorkspaces }, { callbackId, thing }, work),
      );
    },
  };

  const events: Pick<Listen, 'uninstalled' | 'orgWorkspaces' | 'homeOpened'> = {
    uninstalled(listener) {
      const handle = (
        context: Context,
        eventTime: number | undefined,
        reason: Uninstall['reason'],
        botUserIds?: string[],
      ) =>
        settle(
          context,
          undefined, // about an installation, which it names itself
          () => Promise.resolve(),
          () =>
            listener({
              teamId: context.teamId,
              enterpriseId: context.enterpriseId,
              isEnterpriseInstall: context.isEnterpriseInstall === true,
              reason,
              eventTime,
              ...(botUserIds ? { botUserIds } : {}),
            }),
        );
      addRoute(routes.events, 'app_uninstalled', ({ body, context }) =>
        handle(context, eventTimeOf(body), 'app_uninstalled'),
      );
      addRoute(routes.events, 'tokens_revoked', async ({ body, event, context }) => {
        if (event.type !== 'tokens_revoked') return;
        // User tokens alone (the app asks for none) leave the bot working: only a revoked bot token removes it.
        const bots = event.tokens.bot ?? [];
        if (bots.length > 0) await handle(context, eventTimeOf(body), 'tokens_revoked', bots);
      });
    },

    orgWorkspaces(change, listener) {
      const handle = (context: Context, workspaces: Omit<OrgWorkspaces, 'enterpriseId'>) =>
        settle(
          context,
          undefined, // the organization's own news of its workspaces
          () => Promise.resolve(),
          () => listener({ enterpriseId: context.enterpriseId, ...workspaces }),
        );
      if (change === 'joined') {
        addRoute(routes.events, 'team_access_granted', async ({ body, event, context }) => {
          if (event.type !== 'team_access_granted') return;
          await handle(context, {
            teamIds: event.team_ids,
            reason: 'team_access_granted',
            eventTime: eventTimeOf(body),
          });
        });
        return;
      }
      addRoute(routes.events, 'team_access_revoked', async ({ body, event, context }) => {
        if (event.type !== 'team_access_revoked') return;
        await handle(context, { teamIds: event.team_ids, reason: 'team_access_revoked', eventTime: eventTimeOf(body) });
      });
      addRoute(routes.events, 'app_uninstalled_team', async ({ body, event, context }) => {
        // Sent to admin apps about any app: only this app's removal, from one workspace, is about us. Its removal
        // from the whole organization (the event naming the org itself) comes as app_uninstalled.
        if (event.type !== 'app_uninstalled_team') return;
        if (event.app_id !== body.api_app_id || event.team_id === context.enterpriseId) return;
        await handle(context, {
          teamIds: [event.team_id],
          reason: 'app_uninstalled_team',
          eventTime: eventTimeOf(body),
        });
      });
    },

    homeOpened(listener) {
      addRoute(routes.events, 'app_home_opened', async (eventArgs) => {
        if (!isHomeOpened(eventArgs)) return;
        const { next: _next, ...args } = eventArgs;
        // Nobody is waiting on an event's answer: a failure is logged, the person opens Home again.
        const tell: Tell = () => Promise.resolve();
        const teamId = requestWorkspace(args.context, args.body);
        await settle(args.context, teamId, tell, () => listener({ ...args, teamId }));
      });
    },
  };

  return {
    declared(declarations, listeners) {
      registerDeclared(register, declarations, listeners);
      declaredInApp.set(app, [...declarationsOf(app), declarations]);
    },
    ...events,
  };

  /** A note only the clicker sees: ephemeral in the conversation, or a DM for a click on Home or in a modal. */
  function tellClicker(args: ButtonRequest): Tell {
    const recipient = { client: args.client, channelId: args.body.channel?.id, userId: args.body.user.id, logger };
    return (text) =>
      respondSafely(args.respond, { response_type: 'ephemeral', replace_original: false, text }, recipient, text);
  }
}

/**
 * Registers each declared entry with its listener, after checking that every entry has one and every
 * listener an entry (the types ask the same; this catches what the types cannot, such as a spread object).
 */
function registerDeclared<D extends Declarations>(
  register: Registrars,
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

  const l = given;
  for (const [key, c] of Object.entries(declarations.commands ?? {}))
    register.command(c.matches, pick(l.commands, key));
  for (const [key, s] of Object.entries(declarations.shortcuts ?? {}))
    register.shortcut(s.callbackId, pick(l.shortcuts, key));
  for (const [key, s] of Object.entries(declarations.messageShortcuts ?? {}))
    register.messageShortcut(s.callbackId, pick(l.messageShortcuts, key));
  for (const [key, b] of Object.entries(declarations.buttons ?? {}))
    register.button(b.actionId, pick(l.buttons, key), { once: b.once });
  for (const [key, f] of Object.entries(declarations.forms ?? {}))
    register.form(f.callbackId, f.title, pick(l.forms, key));
  for (const [key, o] of Object.entries(declarations.options ?? {})) register.options(o.actionId, pick(l.options, key));
  for (const [key, step] of Object.entries(declarations.steps ?? {}))
    register.step(step.callbackId, step.thing, pick(l.steps, key));
}

function pick<Listener>(listeners: Record<string, Listener> | undefined, key: string): Listener {
  const listener = listeners?.[key];
  if (!listener) throw new Error(`no listener for "${key}"`); // checked above
  return listener;
}

/** When Slack says an event happened (the envelope's `event_time`, in seconds), if it says. */
function eventTimeOf(body: { event_time?: unknown }): number | undefined {
  return typeof body.event_time === 'number' && Number.isFinite(body.event_time) ? body.event_time : undefined;
}

/** What the person is told when a listener fails unexpectedly. */
export function unexpectedFailureText(error: unknown): string {
  return isDatabaseError(error)
    ? ':warning: The app cannot reach its database right now, so nothing was changed. Please try again in a moment.'
    : ':warning: Something went wrong inside the app (the details are logged for its operator). Please try again; if it keeps failing, tell the operator.';
}
