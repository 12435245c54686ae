import type { CapabilityStore, HomeTab } from '../../deps.js';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WebClient } from '@slack/web-api';
import type { BulkheadPolicy } from 'cockatiel';
import { isDatabaseError } from '../../platform/ops/lifecycle/database-error.js';
import type { Logger } from '../../platform/ops/telemetry/create-logger.js';
import { message, section } from '../../platform/blocks/blocks.js';
import { sendDirectMessage } from '../../platform/blocks/direct-message.js';
import { inlineCode } from '../../platform/blocks/mrkdwn.js';
import { slackErrorText } from '../../platform/blocks/slack-error-text.js';
import { slackDate } from '../../platform/blocks/slack-date.js';
import { uploadFile } from '../../platform/slack/web-api/upload-file.js';
import { type ExportRequest, describeRequest } from './export-request.js';
import { textFileSource } from './text-file-source.js';
import { writeAuditCsv } from './write-audit-csv.js';
import { stringFieldOf } from '../../platform/unknown-fields.js';

export interface ExportContext {
  store: CapabilityStore;
  /** The bot's client in a workspace: the file goes to the asker's DM there. */
  slack: (teamId: string) => Promise<WebClient>;
  logger: Logger;
  /** Exports run a few at a time; the others wait their turn, first come first served (no refusal). */
  slots: BulkheadPolicy;
  /** The asker's Home lists the export in their activity: refreshed once it has ended. */
  home: Pick<HomeTab, 'refreshIn'>;
}

const DAY_MS = 86_400_000;

/**
 * The export itself, after the asker was told it is on its way: recorded in the audit log first (if the
 * database cannot take that, nothing is exported), then the CSV written to a temporary file, uploaded to
 * the asker's DM with the app (files.uploadV2's three steps, streamed from the disk), and the file removed.
 * Whatever happens, the asker hears how it ended in that DM, and the audit entry says it too.
 */
export async function runExport(
  ctx: ExportContext,
  asker: { userId: string; teamId: string },
  request: ExportRequest,
): Promise<void> {
  const until = new Date();
  const since = new Date(until.getTime() - request.days * DAY_MS);
  const what = describeRequest(request);
  const logger = ctx.logger.child({ user: asker.userId, operation: 'audit.export' });
  const client = await ctx.slack(asker.teamId);
  const tell = (text: string) => sendDirectMessage(client, asker.userId, message(text, [section(text)]), logger);

  let entryId: string;
  try {
    ({ id: entryId } = await ctx.store.audit.start({
      actorId: asker.userId,
      teamId: asker.teamId,
      operation: 'audit.export',
      inputs: { days: request.days, operation: request.operation, userId: request.userId },
      history: null,
    }));
  } catch (error) {
    logger.error({ err: error }, 'audit log unavailable; nothing exported');
    await tell(
      ':warning: The audit log could not be exported: the app cannot reach its database right now. Try again in a moment.',
    );
    return;
  }
  const complete = (outcome: string, detail: string) =>
    ctx.store.audit
      .complete(entryId, outcome, detail)
      .catch((error: unknown) => logger.error({ err: error }, 'could not record how the export ended'));

  // A directory of its own (0700, made by mkdtemp): nobody else can read the file or plant a link in its place.
  const dir = await mkdtemp(join(tmpdir(), 'mintlink-audit-'));
  const path = join(dir, `audit-${randomUUID()}.csv`);
  try {
    await ctx.slots.execute(async () => {
      // The asker's workspace only: another workspace's log is never in the file, whatever was asked.
      const period = { teamId: asker.teamId, since, until, operation: request.operation, actorId: request.userId };
      const rows = await writeAuditCsv(ctx.store, period, path);
      if (rows === 0) {
        const nothing = `No audit entries match ${what} (${slackDate(since)} to ${slackDate(until)}), so there is no file.`;
        const names = request.operation ? await namesIfNeverRecorded(ctx.store, asker.teamId, request.operation) : '';
        await tell(`:page_facing_up: ${nothing}${names}`);
        await complete('succeeded', 'no entries');
        return;
      }
      const day = until.toISOString().slice(0, 10);
      await uploadFile(client, {
        to: asker.userId,
        filename: `mintlink-audit-${day}-last-${request.days}-days.csv`,
        title: `Mintlink audit log, ${what.replace(/[<>@`]/g, '')}`,
        initialComment: `:page_facing_up: The audit log you asked for: *${rows.toLocaleString('en-US')} entr${rows === 1 ? 'y' : 'ies'}*, ${what}, from ${slackDate(since)} to ${slackDate(until)}.`,
        source: textFileSource(path),
      });
      logger.info({ rows, days: request.days }, 'audit log exported');
      await complete('succeeded', `${rows} entr${rows === 1 ? 'y' : 'ies'}`);
    });
  } catch (error) {
    logger.error({ err: error }, 'audit export failed');
    const reason = failureText(error);
    await tell(`:x: The audit log export (${what}) was not delivered: ${reason}`);
    await complete('failed', reason);
  } finally {
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    ctx.home.refreshIn(asker.teamId, [asker.userId]);
  }
}

/** Why an export failed, for the asker: Slack's answer, the database away, or a fault of the app's own. */
function failureText(error: unknown): string {
  if (stringFieldOf(error, 'code')?.startsWith('slack_webapi')) return slackErrorText(error);
  if (error instanceof Error && error.message.startsWith('the file upload was refused'))
    return `Slack's upload service refused the file (${error.message.slice('the file upload was refused: '.length, 120)}). Please try again.`;
  if (isDatabaseError(error)) return 'the app cannot reach its database right now. Please try again in a moment.';
  return 'something went wrong inside the app (it is logged for the operator). Please try again.';
}

/**
 * When the operation asked for was never recorded in the workspace (a mistyped name, or nothing of that kind
 * done yet), the names its log does hold: the person sees what to ask for. Nothing when it was recorded.
 */
async function namesIfNeverRecorded(store: CapabilityStore, teamId: string, operation: string): Promise<string> {
  const ever = { teamId, operation, since: new Date(0), until: new Date(Date.now() + DAY_MS) };
  const first = await store.auditLogPages.pages(ever, 1).next();
  if (!first.done) return '';
  const names = await store.auditLogPages.operations(teamId);
  const held =
    names.length > 0 ? ` Operations recorded here so far: ${names.map((name) => inlineCode(name)).join(', ')}.` : '';
  return ` Nothing was ever recorded as ${inlineCode(operation)} in this workspace.${held}`;
}
