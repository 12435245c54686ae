import type { AnyMiddlewareArgs, App, GlobalShortcut, MessageShortcut, Middleware, SlackShortcut } from '@slack/bolt';
import { accessLog, type RequestArgs } from '../../ops/telemetry/access-log.js';
import type { Logger } from '../../ops/telemetry/create-logger.js';
import type { Metrics } from '../../ops/telemetry/metrics.js';
import { requestLogFields, requestOf } from '../../ops/telemetry/request-context.js';
import type { Store } from '../../store/store.js';
import { admission } from '../admission/admission-middleware.js';
import type { WorkBudget } from '../admission/work-budget.js';
import { eventKey, firstDelivery } from './deliver-once.js';
import { OrgWorkspaceCheck } from './org-workspace.js';
import { type WorkspaceOfRequest, workspaceOfRequest } from './request-workspace.js';
import type { ButtonArgs, CommandArgs, EventArgs, FormArgs, OptionsArgs, ShortcutArgs } from './requests.js';
import type { StepArgs } from './step-listener.js';
import type { SlackCallHooks } from '../web-api/web-client-options.js';

/** What the wiring opens the pipeline with (app.ts), once, before any capability listens. */
export interface PipelineDeps {
  logger: Logger;
  metrics: Metrics;
  /** The process's work budget, which every request takes a place in (admission). */
  work: WorkBudget;
  /**
   * Once-keys for events delivered again, and the installations, read for requests through an org-wide
   * installation (OrgWorkspaceCheck): tenancy's rows, which no capability's store holds.
   */
  store: Pick<Store, 'onceKeys' | 'installationRows' | 'changes'>;
  /** The app's own workspace (single-workspace mode, once auth.test has said): see workspaceOfRequest. */
  homeTeam: () => string | undefined;
  /** How the app calls Slack: a workflow step's report waits as long as its other calls before trying again. */
  slackCalls: Pick<SlackCallHooks, 'retryWaitMs'>;
}

type Route<Args> = (args: Args) => Promise<void>;

/** The app's listeners of each kind, by command name, action_id, callback_id or event type. */
export interface Routes {
  /** Slash commands, each by the pattern of its name (a dev copy such as `/mintlink-dev` too), first match wins. */
  commands: Array<{ name: RegExp; route: Route<CommandArgs> }>;
  buttons: Map<string, Route<ButtonArgs>>;
  forms: Map<string, Route<FormArgs>>;
  shortcuts: Map<string, Route<ShortcutArgs<GlobalShortcut>>>;
  messageShortcuts: Map<string, Route<ShortcutArgs<MessageShortcut>>>;
  options: Map<string, Route<OptionsArgs>>;
  /** Events (but workflow steps' function_executed), by type. */
  events: Map<string, Route<EventArgs>>;
  /** Workflow steps, by the step's callback_id. */
  steps: Map<string, Route<StepArgs>>;
  /** Whether an org-wide installation serves the workspace a request names (one per app: its cache). */
  orgWorkspaces: OrgWorkspaceCheck;
  /** The workspace each request is for, by the pipeline's one rule (request-workspace.ts). */
  workspaceOf: WorkspaceOfRequest;
}

const routesOfApp = new WeakMap<App, Routes>();

/**
 * The app's routing tables, and the one global middleware that reads them, added to the app by the wiring
 * (app.ts) before any capability listens (routesOf). It is the whole request pipeline's entry, in one step for
 * Bolt: the access log's record and line, admission to the work budget (or a "busy" answer), then the listener.
 * (These are steps of one middleware, not three: each global middleware costs Bolt a copy of the request's
 * arguments and a closure.)
 *
 * No Bolt listener is registered: Bolt runs every listener's matchers on every request, each in a middleware
 * chain of its own (a copy of the request's arguments per matcher, closures and promises apiece): with one
 * listener per handler that would be the largest single cost of a request in `npm run bench`
 * (docs/benchmark.md). This middleware finds the listener of a request by its kind and id in a table instead,
 * so a request costs the same whatever the number of listeners. It does not call `next()` for a request it routes: middleware added after it would not run.
 * A click, submission, shortcut or options request nobody listens to is acknowledged at once rather than left
 * for Slack to time out.
 */
export function openRoutes(app: App, deps: PipelineDeps): Routes {
  if (routesOfApp.has(app)) throw new Error('the request pipeline is opened once per app');
  const routes: Routes = {
    commands: [],
    buttons: new Map(),
    forms: new Map(),
    shortcuts: new Map(),
    messageShortcuts: new Map(),
    options: new Map(),
    events: new Map(),
    steps: new Map(),
    orgWorkspaces: new OrgWorkspaceCheck(deps.store),
    workspaceOf: workspaceOfRequest(deps.homeTeam),
  };
  routesOfApp.set(app, routes);
  app.use(dispatch(routes, deps));
  return routes;
}

/**
 * The tables a capability adds its listeners to. The wiring opens them first (openRoutes): a capability's deps
 * hold neither the installations nor the work budget the pipeline needs.
 */
export function routesOf(app: App): Routes {
  const routes = routesOfApp.get(app);
  if (!routes)
    throw new Error('the wiring opens the request pipeline (openPipeline, app.ts) before any capability listens');
  return routes;
}

/** Adds a listener to its table; an id is routed to one listener only. */
export function addRoute<Args>(map: Map<string, Route<Args>>, id: string, route: Route<Args>): void {
  if (map.has(id)) throw new Error(`a listener for "${id}" is registered twice`);
  map.set(id, route);
}

/** A request as Bolt hands it to middleware: recognized by the guards below, then typed as its kind. */
type Args = { next: () => Promise<void> };

function dispatch(routes: Routes, deps: PipelineDeps): Middleware<AnyMiddlewareArgs> {
  const logged = accessLog(deps);
  const admitted = admission(deps.work, deps);
  // Bolt's union of every kind of request is too wide for TypeScript to narrow; each kind is recognized below.
  const routeIt = (args: RequestArgs) => route(routes, deps, args);
  const admitThenRoute = (args: RequestArgs) => admitted(args, routeIt);
  return (args) => logged(args, admitThenRoute);
}

async function route(routes: Routes, deps: PipelineDeps, args: Args): Promise<void> {
  {
    // Bolt has acknowledged every event but a step's before any middleware runs; a step is acknowledged here
    // at once, as Bolt's app.function does (autoAcknowledge).
    if (isStep(args)) {
      if (!(await firstEventDelivery(args, deps))) return;
      await args.ack();
      await routes.steps.get(args.event.function.callback_id)?.(args);
      return;
    }
    if (isEvent(args)) {
      if (await firstEventDelivery(args, deps)) await routes.events.get(args.event.type)?.(args);
      return;
    }
    if (isCommand(args)) {
      const command = args.command.command;
      const found = routes.commands.find(({ name }) => name.test(command));
      if (found) return found.route(args);
      return args.next();
    }
    if (isButtonClick(args)) return routed(routes.buttons.get(args.action.action_id), args, () => args.ack());
    if (isSubmission(args)) return routed(routes.forms.get(args.view.callback_id), args, () => args.ack());
    if (isShortcut(args)) {
      if (isGlobalShortcut(args))
        return routed(routes.shortcuts.get(args.shortcut.callback_id), args, () => args.ack());
      if (isMessageShortcut(args))
        return routed(routes.messageShortcuts.get(args.shortcut.callback_id), args, () => args.ack());
      return args.ack();
    }
    if (isExternalSelect(args))
      return routed(routes.options.get(args.options.action_id), args, () => args.ack({ options: [] }));
    return args.next(); // a kind the app does not listen to (a view closed, a legacy attachment action)
  }
}

function routed<A>(route: Route<A> | undefined, args: A, unrouted: () => Promise<void>): Promise<void> {
  return route ? route(args) : unrouted();
}

/**
 * Every event does its work once, whatever Slack delivers again and whichever replica it reaches: the first
 * delivery of an `event_id` claims it for every replica (a once-key in the database, kept far longer than
 * Slack's retries go on), and a later delivery ends here, before any listener: an uninstall, a Home opened, a
 * workflow step, and any event a capability adds.
 */
async function firstEventDelivery(args: EventArgs | StepArgs, deps: PipelineDeps): Promise<boolean> {
  const key = eventKey(args.body);
  if (!key || (await firstDelivery(deps.store, key, args.context.teamId))) return true;
  deps.logger.info(
    {
      ...requestLogFields(requestOf(args.context)),
      retryNum: args.context.retryNum,
      retryReason: args.context.retryReason,
    },
    'event delivered again; already handled',
  );
  // Bolt leaves a workflow step's ack to its listener: unanswered, Slack would send it yet again.
  if (isStep(args)) await args.ack();
  return false;
}

function isEvent(args: object): args is EventArgs {
  return 'event' in args;
}

function isStep(args: object): args is StepArgs {
  return field(field(args, 'event'), 'type') === 'function_executed' && 'ack' in args && typeof args.ack === 'function';
}

function isCommand(args: object): args is CommandArgs {
  return 'command' in args;
}

function isButtonClick(args: object): args is ButtonArgs {
  return 'action' in args && field(field(args, 'body'), 'type') === 'block_actions';
}

function isSubmission(args: object): args is FormArgs {
  return 'view' in args && field(field(args, 'body'), 'type') === 'view_submission';
}

function isShortcut(args: object): args is ShortcutArgs<SlackShortcut> {
  return 'shortcut' in args;
}

function isGlobalShortcut(args: ShortcutArgs<SlackShortcut>): args is ShortcutArgs<GlobalShortcut> {
  return args.shortcut.type === 'shortcut';
}

function isMessageShortcut(args: ShortcutArgs<SlackShortcut>): args is ShortcutArgs<MessageShortcut> {
  return args.shortcut.type === 'message_action';
}

function isExternalSelect(args: object): args is OptionsArgs {
  return 'options' in args && field(field(args, 'body'), 'type') === 'block_suggestion';
}

/** A field of a payload whose shape is not known yet. */
function field(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null && name in value ? Reflect.get(value, name) : undefined;
}
