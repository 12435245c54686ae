import type {
  AllMiddlewareArgs,
  BlockAction,
  ButtonAction,
  GlobalShortcut,
  MessageShortcut,
  SlackActionMiddlewareArgs,
  SlackCommandMiddlewareArgs,
  SlackEventMiddlewareArgs,
  SlackOptionsMiddlewareArgs,
  SlackShortcut,
  SlackShortcutMiddlewareArgs,
  SlackViewMiddlewareArgs,
  ViewSubmitAction,
} from '@slack/bolt';
import type { Outcome } from '../../ops/telemetry/request-context.js';
import type { Declarations } from './declarations.js';
import type { StepResult, StepRun } from './step-listener.js';

/**
 * How a listener's work ended when it did not throw: nothing means it went as asked; an outcome says
 * otherwise (the Mint service failed and the form shows why, say).
 */
export type Ended = Outcome | undefined | void;

/** What Bolt hands every middleware and listener of a request of this kind. */
export type Bolt<Args> = Args & AllMiddlewareArgs;
export type CommandArgs = Bolt<SlackCommandMiddlewareArgs>;
export type ButtonArgs = Bolt<SlackActionMiddlewareArgs<BlockAction<ButtonAction>>>;
export type FormArgs = Bolt<SlackViewMiddlewareArgs<ViewSubmitAction>>;
export type ShortcutArgs<Shortcut extends SlackShortcut> = Bolt<SlackShortcutMiddlewareArgs<Shortcut>>;
export type OptionsArgs = Bolt<SlackOptionsMiddlewareArgs<'block_suggestion'>>;
export type EventArgs = Bolt<SlackEventMiddlewareArgs>;
export type HomeOpenedArgs = Bolt<SlackEventMiddlewareArgs<'app_home_opened'>>;

/**
 * Every request carries the workspace it is for, decided once by the pipeline (request-workspace.ts): the
 * installation's, which is not always the person's (Slack Connect), or the app's own in single-workspace mode when
 * Slack names none; never empty (a request for no workspace is refused before its listener runs). Rows are read
 * and changed in it only.
 */
export interface InWorkspace {
  teamId: string;
}
/** A slash command; `ack` must be called within Slack's 3 seconds, before any slow work. */
export type CommandRequest = Omit<CommandArgs, 'next'> & InWorkspace;
/** A button click, already acknowledged (and, with `once`, the first delivery of it). */
export type ButtonRequest = Omit<ButtonArgs, 'ack' | 'next'> & InWorkspace;
/**
 * A modal submitted. `ack` answers Slack (inline errors, update, push, clear); after any ack but inline errors,
 * a second delivery of the same submission ends inside `ack`, so the code after it runs once.
 */
export type FormRequest = Omit<FormArgs, 'next'> & InWorkspace;
/** A global or message shortcut, already acknowledged: its trigger_id is good for 3 seconds. */
export type ShortcutRequest<Shortcut extends GlobalShortcut | MessageShortcut> = Omit<
  ShortcutArgs<Shortcut>,
  'ack' | 'next'
> &
  InWorkspace;
export type HomeOpenedRequest = Omit<HomeOpenedArgs, 'next'> & InWorkspace;
/** A select that loads its options from the app (an external select); answered with no options if it fails. */
export type OptionsRequest = Omit<OptionsArgs, 'next'> & InWorkspace;

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

/** One listener for each entry a capability declared, of each kind it declared, and no other. */
export type ListenersOf<D extends Declarations> = {
  [Kind in keyof ListenerOfKind as Kind extends keyof D ? Kind : never]: {
    [Id in keyof D[Kind]]: ListenerOfKind[Kind];
  };
};
