import { expect } from 'vitest';
import { BULK_BLOCKS } from '../../../src/capabilities/bulk/bulk-form.js';
import type { FakeSlack } from '../../kit/fake-slack.js';
import type { SlackDriver } from '../../kit/slack-driver.js';
import { textOf } from '../../kit/slack-checks.js';
import {
  buttonClick,
  viewButtonClick,
  viewSubmission,
  type PostedMessage,
  type SlackView,
} from '../../kit/slack-payloads.js';
import { responseUrls, stateValues, type Entry } from '../../kit/view-state.js';
import { inTeam } from '../../kit/workspaces.js';
import { viewWhen } from './bulk-kit.js';

/** A job as started: its id, and its progress message (in the requester's DM). */
export interface StartedJob {
  jobId: string;
  channel: string;
  ts: string;
}

/**
 * One person in one workspace using the bulk flow (HTTP mode): every payload is signed as from `teamId`,
 * whatever ids it names (a view's metadata, a button's value): what a forged request looks like too.
 */
export class BulkUser {
  constructor(
    private readonly app: SlackDriver,
    private readonly slack: FakeSlack,
    readonly teamId: string,
    readonly userId: string,
  ) {}

  /** `/mintlink <text>`; resolves with the modal it opened. */
  async command(text: string): Promise<SlackView> {
    const { fields, status } = await this.app.command(text, { user_id: this.userId, team_id: this.teamId });
    if (status !== undefined) expect(status).toBe(200); // over HTTP (the replicas' test)
    await this.slack.waitForCall('views.open', (c) => c.params.trigger_id === fields.trigger_id);
    return this.slack.lastOpenedView();
  }

  async submit(view: SlackView, entries: Record<string, Entry> = {}): Promise<Record<string, unknown> | undefined> {
    const values = stateValues(view, entries);
    const urls = responseUrls(view, values, () => this.slack.responseUrl());
    const ack = await this.app.interact(inTeam(viewSubmission(view, values, this.userId, urls), this.teamId));
    this.slack.applySubmissionAck(view.id, ack);
    return ack;
  }

  /** Clicks a button of a message; resolves with the response_url the app answers on. */
  async click(message: PostedMessage, actionId: string): Promise<string> {
    const payload = inTeam(buttonClick(this.slack, message, actionId, this.userId), this.teamId);
    await this.app.interact(payload);
    return String(payload.response_url);
  }

  async clickInView(view: SlackView, actionId: string): Promise<void> {
    const payload = viewButtonClick(this.slack, view, actionId, stateValues(view, {}), this.userId);
    await this.app.interact(inTeam(payload, this.teamId));
  }

  /** Pastes `csv` in the "Bulk create" form and resolves with the preview. */
  async preview(csv: string, extra: Record<string, Entry> = {}): Promise<SlackView> {
    const form = await this.command('bulk');
    await this.submit(form, { [BULK_BLOCKS.paste]: csv, ...extra });
    const next = await viewWhen(this.slack, form.id, (v) => !JSON.stringify(v).includes('Checking'));
    expect(next.callback_id).toBe('bulk_preview');
    return next;
  }

  /** Presses Start on a preview; resolves once the job's progress message is in the DM. */
  async start(preview: SlackView): Promise<StartedJob> {
    const jobId = String(preview.private_metadata);
    await this.submit(preview);
    const posted = await this.slack.waitForCall(
      'chat.postMessage',
      (c) => c.params.channel === this.userId && textOf(c.params.blocks).includes(jobId),
      10_000,
    );
    return { jobId, channel: String(posted.answer?.channel), ts: String(posted.answer?.ts) };
  }
}

/** A message carrying one button with this value: what a forged click sends, whatever message it claims. */
export function forgedButton(actionId: string, value: string): PostedMessage {
  return {
    ts: '1700000000.000900',
    channelId: 'D0FORGED1',
    text: 'forged',
    blocks: [
      {
        type: 'actions',
        block_id: 'forged',
        elements: [{ type: 'button', action_id: actionId, value, text: { type: 'plain_text', text: 'Go' } }],
      },
    ],
  };
}

/** Emails of link rows u<from>@example.com ... (see linkCsv): which workspace's CSV a request came from. */
export function rowNumberOf(body: unknown): number {
  const email = String((body as { email?: string }).email ?? '');
  return Number(/^u(\d+)@/.exec(email)?.[1] ?? Number.NaN);
}
