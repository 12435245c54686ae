import type { Store } from '../../src/platform/store/store.js';
import type { FakeSlack } from './fake-slack.js';
import {
  buttonClick,
  eventCallback,
  inTeam,
  globalShortcut,
  slashCommand,
  viewButtonClick,
  viewSubmission,
  type PostedMessage,
  type SlackView,
} from './slack-payloads.js';
import { TEST_TEAM_ID, TEST_USER_ID } from './slack-ids.js';
import { responseUrls, stateValues, type Entry } from './view-state.js';

export interface CommandResult {
  /** The fields sent, including the response_url and trigger_id. */
  fields: Record<string, string>;
  /** HTTP status of the request (HTTP mode; undefined when there is no HTTP). */
  status: number | undefined;
  /** What the app acknowledged with (HTTP response body, the Socket Mode ack payload, or the ack's argument). */
  ack: Record<string, unknown> | undefined;
}

/** Slack's ack of what it sent: an empty ack reads as undefined, however it travelled. */
export type Ack = Record<string, unknown> | undefined;

/**
 * The real app as Slack drives it, whatever carries Slack's requests: what a person does in Slack (a command,
 * a click, a form submitted, a shortcut, a workflow step run) becomes the payload Slack sends, delivered by
 * `sendCommand`, `sendInteraction` and `sendEvent`: signed HTTP or Socket Mode envelopes (RunningApp), or Bolt's
 * receiver in the test's own process (ListenerApp). What the app logged is kept for the checks.
 */
export abstract class SlackDriver {
  protected output = '';
  /**
   * The workspace requests come from (distribution mode): commands, interactions and events are sent as from
   * it (see inTeam). The test workspace unless a test changes it.
   */
  teamId = TEST_TEAM_ID;

  protected constructor(protected readonly slack: FakeSlack) {}

  /** True once the app has stopped or exited. */
  protected abstract get hasEnded(): boolean;

  /** Stops the app (a process: with this signal) and resolves with its exit code. */
  abstract stop(signal?: NodeJS.Signals): Promise<number | null>;

  /** Resolves with the exit code once the app has ended. */
  abstract get exitCode(): Promise<number | null>;

  /** The app's own database, for checking what it recorded. Close it after use. */
  abstract openStore(): Store;

  /**
   * Resolves once the app has no work in flight: every request and background refresh counts until its last
   * call ends, so this is the signal that whatever the test's requests started has finished (used before
   * checking that something did NOT happen).
   */
  abstract waitForIdle(timeoutMs?: number): Promise<void>;

  /** Delivers a slash command's fields as Slack does; resolves with the ack (and the HTTP status, if any). */
  protected abstract sendCommand(fields: Record<string, string>): Promise<{ status: number | undefined; ack: Ack }>;

  /** Delivers an interaction payload (block_actions, view_submission, shortcut...); resolves with the ack. */
  protected abstract sendInteraction(payload: Record<string, unknown>): Promise<Ack>;

  /** Delivers an Events API callback (acknowledged at once); `retryNum` marks Slack's retry of a delivery. */
  protected abstract sendEvent(callback: Record<string, unknown>, retryNum?: number): Promise<void>;

  /** Everything the app wrote (its log lines; a process's stderr too). */
  get logs(): string {
    return this.output;
  }

  /** The JSON log lines written so far. */
  get logLines(): Array<Record<string, unknown> & { msg?: string; level?: string }> {
    return this.output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown> & { msg?: string; level?: string });
  }

  async waitForLog(
    predicate: (line: Record<string, unknown> & { msg?: string }) => boolean,
    timeoutMs = 5_000,
  ): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.logLines.some((line) => predicate(line))) {
      if (this.hasEnded) throw new Error(`the app ended before the expected log line:\n${this.output}`);
      if (Date.now() > deadline)
        throw new Error(`expected log line did not appear within ${timeoutMs} ms:\n${this.output}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** Sends `/mintlink <text>` the way Slack does and returns what the app acknowledged. */
  async command(text: string, overrides: Record<string, string> = {}): Promise<CommandResult> {
    const fields = inTeam(slashCommand(this.slack, text, overrides), this.teamId);
    const { status, ack } = await this.sendCommand(fields);
    return { fields, status, ack };
  }

  /** Sends a command that opens a modal; resolves with the command, the views.open call and the view. */
  async commandOpeningModal(text: string, overrides: Record<string, string> = {}) {
    const { fields, ack } = await this.command(text, overrides);
    const open = await this.slack.waitForCall('views.open', (c) => c.params.trigger_id === fields.trigger_id);
    return { fields, ack, open, view: this.slack.lastOpenedView() };
  }

  /**
   * Opens a form with `/mintlink text`, submits `entries`, and resolves with Slack's side: the form, the ack,
   * the view the modal shows next (the outcome) and the direct message the app sent the user.
   */
  async submitFormFromCommand(text: string, entries: Record<string, Entry>) {
    const { view } = await this.commandOpeningModal(text);
    const ack = await this.submitView(view, entries);
    const outcome = await this.slack.viewUpdate(view.id);
    const dm = await this.slack.waitForCall('chat.postMessage', (c) => c.params.channel === TEST_USER_ID);
    return { view, ack, outcome, dm: dm.params };
  }

  /** Sends an interaction payload (block_actions, view_submission, shortcut...) and returns the ack. */
  async interact(sent: Record<string, unknown>): Promise<Ack> {
    return this.sendInteraction(inTeam(sent, this.teamId));
  }

  /**
   * Submits a modal as a user would: the view's inputs keep their initial values unless `entries` sets
   * them. Slack's side of the ack (new view, inline errors) is applied to the fake.
   */
  async submitView(view: SlackView, entries: Record<string, Entry> = {}, userId = TEST_USER_ID): Promise<Ack> {
    const values = stateValues(view, entries);
    const ack = await this.interact(
      viewSubmission(
        view,
        values,
        userId,
        responseUrls(view, values, () => this.slack.responseUrl()),
      ),
    );
    this.slack.applySubmissionAck(view.id, ack);
    return ack;
  }

  /** Clicks a button of a message; resolves with the click's response_url (where the app answers). */
  async click(message: PostedMessage, actionId: string, userId = TEST_USER_ID): Promise<string> {
    const payload = buttonClick(this.slack, message, actionId, userId);
    await this.interact(payload);
    return payload.response_url as string;
  }

  /** Clicks a button inside a modal; the modal's inputs hold `entries` (or their initial values). */
  async clickInView(
    view: SlackView,
    actionId: string,
    entries: Record<string, Entry> = {},
    userId = TEST_USER_ID,
  ): Promise<void> {
    await this.interact(viewButtonClick(this.slack, view, actionId, stateValues(view, entries), userId));
  }

  /** Clicks a button on a Home tab (`value` picks one of several with the same action). */
  async clickOnHome(home: SlackView, actionId: string, userId: string, value?: string): Promise<void> {
    await this.interact(viewButtonClick(this.slack, home, actionId, {}, userId, value));
  }

  /**
   * Delivers an Events API event, as Slack does (events are acknowledged at once); `retryNum` marks it as
   * Slack's retry of an earlier delivery.
   */
  async event(event: Record<string, unknown>, retryNum?: number): Promise<void> {
    await this.sendEvent(inTeam(eventCallback(event), this.teamId), retryNum);
  }

  async shortcut(callbackId: string, userId = TEST_USER_ID): Promise<Ack> {
    return this.interact(globalShortcut(this.slack, callbackId, userId));
  }

  /** A workflow runs one of the app's custom steps: Slack's function_executed event. Returns the execution id. */
  async runStep(callbackId: string, inputs: Record<string, unknown>): Promise<string> {
    const event = this.slack.stepExecution(callbackId, inputs);
    await this.event(event);
    return String(event.function_execution_id);
  }
}
