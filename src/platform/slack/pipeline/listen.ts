import type { App } from '@slack/bolt';
import type { Declarations, Declared } from './declarations.js';
import { registerDeclared } from './declared-listeners.js';
import { type EventListeners, eventListeners } from './event-listeners.js';
import type { ListenersOf } from './requests.js';
import type { Logger } from '../../ops/telemetry/create-logger.js';
import type { Store } from '../../store/store.js';
import { type PipelineDeps, openRoutes, routesOf } from './routes.js';
import { settler } from './settle.js';

export type {
  ButtonRequest,
  CommandRequest,
  Ended,
  FormRequest,
  HomeOpenedRequest,
  InWorkspace,
  ListenerOfKind,
  ListenersOf,
  OptionsRequest,
  ShortcutRequest,
} from './requests.js';
export { unexpectedFailureText } from './settle.js';

/**
 * The one way a capability listens to Slack. `declared` routes each entry of the capability's declarations
 * (declarations.ts) to its typed listener, found by its id in the pipeline's tables (routes.ts: one global
 * middleware, no Bolt listener per entry), and wraps it in the request pipeline, which does, once and for
 * every request, what no listener should repeat:
 * - the outcome (access log, metrics): read from the ack (inline errors are invalid input), from a
 *   `RequestEnded` thrown (refused, invalid input, upstream failure) and from what the work returns (settle.ts);
 * - once-only delivery: a click (declared `once`), a submission or an event delivered twice does the work
 *   once, on any replica (deliver-once.ts);
 * - telling the person when something failed, in the way the request allows, and logging it for the operator
 *   (declared-listeners.ts, one wrapper per kind);
 * - acknowledging clicks and shortcuts at once.
 * Busy answers come before any of this, from the admission middleware; secrets are scrubbed where every
 * log line and Slack call passes; the listener's `client` is the one Bolt authorized for the request.
 */
export interface Listen extends EventListeners {
  /**
   * The capability's listeners, one per declared entry. A form's notice, when the request ends in a refusal
   * or failure, keeps the title of the modal the person submitted; the declared `title` is for a view that
   * came back without one. An entry without a listener, or a listener for no entry, fails here, at start.
   */
  declared<D extends Declarations>(declarations: Declared<D>, listeners: ListenersOf<D>): void;
}

const declaredInApp = new WeakMap<App, Declared<Declarations>[]>();

/** Every declaration registered on the app so far (the start-up check's and the manifest test's). */
export function declarationsOf(app: App): readonly Declared<Declarations>[] {
  return declaredInApp.get(app) ?? [];
}

/**
 * Opens the app's request pipeline (routes.ts): the wiring does it once, before any capability listens, with
 * what only it holds (the installations, the work budget, the app's own workspace). Returns the wiring's own way
 * to listen, as `listen` does.
 */
export function openPipeline(app: App, deps: PipelineDeps): Listen {
  openRoutes(app, deps);
  return listen(app, deps);
}

/**
 * What the listeners of one capability are wrapped with: its logger, the once-keys of its clicks and forms, and
 * how the app calls Slack (a workflow step's report waits as long as the app's other calls before trying again).
 */
export interface ListenDeps {
  logger: Logger;
  store: Pick<Store, 'onceKeys'>;
  slackCalls: PipelineDeps['slackCalls'];
}

/** A capability's way to listen, in the pipeline the wiring opened (fails at start when it has not). */
export function listen(app: App, deps: ListenDeps): Listen {
  const routes = routesOf(app);
  const settle = settler({ logger: deps.logger, orgWorkspaces: routes.orgWorkspaces });
  return {
    declared(declarations, listeners) {
      registerDeclared({ ...deps, routes, settle }, declarations, listeners);
      declaredInApp.set(app, [...declarationsOf(app), declarations]);
    },
    ...eventListeners(routes, settle),
  };
}
