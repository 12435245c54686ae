import { CsvTableProblem } from '../../platform/csv/read-csv.js';
import type { LinkDefaults } from '../../platform/mint/row-requests.js';
import type { CreateLinkRequest } from '../../platform/mint/schemas.js';
import type { Ended, FormRequest } from '../../platform/slack/pipeline/listen.js';
import { downloadSlackFile, type Download } from '../../platform/slack/web-api/download-file.js';
import { escapeMrkdwn } from '../../platform/blocks/mrkdwn.js';
import type { BulkRow, NewBulkRow, StoredDraft } from '../../platform/store/bulk-jobs/jobs.js';
import { updateModal } from '../../platform/blocks/update-modal.js';
import { jobsIn, type BulkContext } from './bulk-context.js';
import {
  BULK_BLOCKS,
  DRAFTS_KEPT,
  MAX_FILE_BYTES,
  bulkFormView,
  formErrors,
  readBulkForm,
  type BulkFormValues,
} from './bulk-form.js';
import { ERRORS_SHOWN, checkingView, previewView } from './bulk-views.js';
import { readJobTable } from './job-table.js';

/** Said on the form when every check slot (BULK_CHECK_SLOTS) is taken; Slack keeps the form as filled. */
export const CHECK_BUSY_TEXT =
  'The app is checking other files right now. Nothing is lost: press Check again in a minute.';

/**
 * "Bulk create" submitted: what the form alone shows wrong gets inline errors; so does a Check that finds
 * every check slot taken (a few files are read at a time, whoever sends them). Otherwise the modal says
 * "Checking…" at once, the CSV is read (downloaded with the bot token, or the pasted text) as a stream,
 * every row is checked as it comes and packed into the draft, and the modal shows the preview with Start.
 * Nothing is sent.
 */
export function handleBulkFormSubmission(ctx: BulkContext) {
  return async ({ ack, body, view, client, context, teamId }: FormRequest): Promise<Ended> => {
    const values = readBulkForm(view.state.values);
    const errors = formErrors(values, new Date());
    if (Object.keys(errors).length > 0) return ack({ response_action: 'errors', errors });
    if (ctx.checkSlots.executionSlots === 0) {
      ctx.logger.info('bulk check answered "busy": every check slot is taken');
      const block = values.files.length > 0 ? BULK_BLOCKS.file : BULK_BLOCKS.paste;
      await ack({ response_action: 'errors', errors: { [block]: CHECK_BUSY_TEXT } });
      return 'busy';
    }
    // A slot is free: execute() takes it at once (nothing else runs in between) and gives it back at the end.
    return ctx.checkSlots.execute(async (): Promise<Ended> => {
      const sourceName = values.files[0]?.name ?? 'pasted text';
      await ack({ response_action: 'update', view: checkingView(sourceName) });
      const checked = await checkSource(
        ctx,
        values,
        { teamId, userId: body.user.id },
        context.botToken ?? ctx.botToken,
      );
      if (!checked.ok) {
        const problem = `*${sourceName === 'pasted text' ? 'The pasted text' : 'The file'} cannot be used.* ${escapeMrkdwn(checked.problem)}`;
        await updateModal(client, view.id, bulkFormView({ kind: values.kind, problem }), ctx.logger);
        return 'invalid_input';
      }
      const { draft, errorsShown } = checked;
      await updateModal(client, view.id, previewView(draft.job, errorsShown, { dropped: draft.dropped }), ctx.logger);
    });
  };
}

type Checked =
  | { ok: true; draft: StoredDraft; errorsShown: Array<Pick<BulkRow, 'rowNumber' | 'error'>> }
  | { ok: false; problem: string };

/**
 * Reads the CSV (an attached file with the bot token of the request's workspace) and stores its checked rows
 * as a draft of that workspace; the first errors are kept on the way, for the preview.
 */
async function checkSource(
  ctx: BulkContext,
  values: BulkFormValues,
  asker: { teamId: string; userId: string },
  botToken: string | undefined,
): Promise<Checked> {
  const source = await sourceBytes(ctx, values, botToken);
  if (!source.ok) return source;
  const table = await readJobTable(source.bytes, values.kind, linkDefaults(values), new Date());
  if (!table.ok) return table;
  const errorsShown: Array<Pick<BulkRow, 'rowNumber' | 'error'>> = [];
  async function* noteErrors(rows: AsyncIterable<NewBulkRow>): AsyncGenerator<NewBulkRow> {
    for await (const row of rows) {
      if (row.error !== undefined && errorsShown.length < ERRORS_SHOWN)
        errorsShown.push({ rowNumber: row.rowNumber, error: row.error });
      yield row;
    }
  }
  try {
    const draft = await jobsIn(ctx, asker.teamId).createDraft(
      {
        teamId: asker.teamId,
        requesterId: asker.userId,
        kind: values.kind,
        sourceName: values.files[0]?.name ?? 'pasted text',
        columns: table.columns,
        defaults: values.kind === 'links' ? { ...linkDefaults(values) } : {},
        rows: noteErrors(table.rows),
      },
      new Date(),
      { keepNewest: DRAFTS_KEPT, scrub: ctx.scrub },
    );
    return { ok: true, draft, errorsShown };
  } catch (error) {
    if (error instanceof CsvTableProblem) return { ok: false, problem: error.message };
    throw error;
  }
}

function linkDefaults(values: BulkFormValues): LinkDefaults {
  return {
    ...(values.nftId ? { nftId: values.nftId } : {}),
    // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- the form's static select offers only the request's own values
    walletOptions: (values.walletOptions ?? 'CUSTODIAL') as CreateLinkRequest['walletOptions'],
    // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- the form's static select offers only the request's own values
    type: (values.type ?? 'GENERAL') as CreateLinkRequest['type'],
    isActive: values.active,
    ...(values.claimStart ? { startDate: values.claimStart.toISOString() } : {}),
    ...(values.claimEnd ? { endDate: values.claimEnd.toISOString() } : {}),
  };
}

type SourceBytes = { ok: true; bytes: Buffer } | { ok: false; problem: string };

async function sourceBytes(
  ctx: BulkContext,
  values: BulkFormValues,
  botToken: string | undefined,
): Promise<SourceBytes> {
  const file = values.files[0];
  if (!file) return { ok: true, bytes: Buffer.from(values.pasted ?? '', 'utf8') };
  if (botToken === undefined)
    return { ok: false, problem: 'Attached files cannot be read in this installation yet: paste the CSV instead.' };
  const download = await downloadSlackFile(file.downloadUrl, {
    botToken,
    slackApiUrl: ctx.slackApiUrl,
    maxBytes: MAX_FILE_BYTES,
    ...(ctx.downloadDeadlineMs === undefined ? {} : { deadlineMs: ctx.downloadDeadlineMs }),
  });
  if (download.ok) return download;
  ctx.logger.warn({ reason: download.reason, detail: download.detail, file: file.id }, 'could not download the CSV');
  return { ok: false, problem: downloadProblem(download) };
}

function downloadProblem(download: Extract<Download, { ok: false }>): string {
  switch (download.reason) {
    case 'too_large':
      return 'It is larger than 2 MB: split it into smaller files.';
    case 'refused':
    case 'not_a_file':
      return `Slack did not let the app read it (${download.detail}): the app needs the files:read scope; ask its operator to reinstall it from manifest.yml.`;
    case 'not_found':
      return 'Slack no longer has it (deleted?). Attach it again.';
    case 'not_slack':
      return 'It is not a file on Slack.';
    case 'failed':
      return `The app could not download it from Slack (${download.detail}). Try again in a moment.`;
  }
}
