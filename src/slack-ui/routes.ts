import type {
  AllMiddlewareArgs,
  App,
  SlackAction,
  SlackActionMiddlewareArgs,
  SlackShortcut,
  SlackShortcutMiddlewareArgs,
  SlackViewAction,
  SlackViewMiddlewareArgs,
} from '@slack/bolt';
import type { InFlight } from '../lifecycle/in-flight.js';
import type { Logger } from '../logging/create-logger.js';

/**
 * A handler takes Bolt's own arguments narrowed to what it handles (a button click, a submission...);
 * the table can hold any of them, and dispatch hands over what Bolt gave.
 */
type Handler = (args: never) => Promise<void>;

/**
 * The app's interactive handlers, each in its own file, reached through one Bolt listener per kind. Bolt
 * runs every request through every registered listener's middleware; a table lookup instead of a dozen
 * listeners keeps the acknowledgement path as short as a bare Bolt app's.
 */
export class Routes {
  private readonly actions = new Map<string, Handler>();
  private readonly actionPatterns: Array<[RegExp, Handler]> = [];
  private readonly views = new Map<string, Handler>();
  private readonly shortcuts = new Map<string, Handler>();

  action(actionId: string | RegExp, handler: Handler): this {
    if (typeof actionId === 'string') this.add(this.actions, actionId, handler);
    else this.actionPatterns.push([actionId, handler]);
    return this;
  }

  view(callbackId: string, handler: Handler): this {
    this.add(this.views, callbackId, handler);
    return this;
  }

  shortcut(callbackId: string, handler: Handler): this {
    this.add(this.shortcuts, callbackId, handler);
    return this;
  }

  /** Installs the listeners; every handler's work counts as in flight until it ends (for shutdown). */
  install(app: App, inFlight: InFlight, logger: Logger): void {
    app.action(/.*/, async (args: SlackActionMiddlewareArgs<SlackAction> & AllMiddlewareArgs) => {
      const id = 'action_id' in args.action ? args.action.action_id : ''; // legacy message actions have none
      const handler = this.actions.get(id) ?? this.actionPatterns.find(([pattern]) => pattern.test(id))?.[1];
      if (handler) return inFlight.track(handler(args as never));
      logger.debug({ actionId: id }, 'no handler for this action; acknowledged');
      await args.ack();
    });
    app.view(/.*/, async (args: SlackViewMiddlewareArgs<SlackViewAction> & AllMiddlewareArgs) => {
      const handler = this.views.get(args.view.callback_id);
      if (handler) return inFlight.track(handler(args as never));
      logger.warn({ callbackId: args.view.callback_id }, 'no handler for this view; acknowledged');
      await args.ack();
    });
    app.shortcut(/.*/, async (args: SlackShortcutMiddlewareArgs<SlackShortcut> & AllMiddlewareArgs) => {
      const handler = this.shortcuts.get(args.shortcut.callback_id);
      if (handler) return inFlight.track(handler(args as never));
      logger.warn({ callbackId: args.shortcut.callback_id }, 'no handler for this shortcut; acknowledged');
      await args.ack();
    });
  }

  private add<H>(table: Map<string, H>, key: string, handler: H): void {
    if (table.has(key)) throw new Error(`"${key}" has two handlers`);
    table.set(key, handler);
  }
}
