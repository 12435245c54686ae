import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import type { LinkDefaults } from '../mint-api/row-requests.js';
import type { CreateLinkRequest } from '../mint-api/schemas.js';
import { noteOutcome, requestOf } from '../observability/request-context.js';
import { downloadSlackFile, type Download } from '../slack-api/download-file.js';
import { firstDelivery, submissionKey } from '../slack-ui/deliver-once.js';
import { escapeMrkdwn } from '../slack-ui/mrkdwn.js';
import { updateModal } from '../slack-ui/update-modal.js';
import type { BulkContext } from './bulk-context.js';
import { MAX_FILE_BYTES, bulkFormView, formErrors, readBulkForm, type BulkFormValues } from './bulk-form.js';
import { ERRORS_SHOWN, checkingView, previewView } from './bulk-views.js';
import { readJobTable } from './job-table.js';

type Args = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;

/**
 * "Bulk create" submitted: what the form alone shows wrong gets inline errors; otherwise the modal says
 * "Checking…" at once, the CSV is read (downloaded with the bot token, or the pasted text), every row is
 * checked, the job is stored as a draft, and the modal shows the preview with Start. Nothing is sent.
 */
export function handleBulkFormSubmission(ctx: BulkContext) {
  return async ({ ack, body, view, context }: Args): Promise<void> => {
    const request = requestOf(context);
    const values = readBulkForm(view.state.values);
    const errors = formErrors(values, new Date());
    if (Object.keys(errors).length > 0) {
      noteOutcome(request, 'invalid_input');
      await ack({ response_action: 'errors', errors });
      return;
    }
    const sourceName = values.files[0]?.name ?? 'pasted text';
    await ack({ response_action: 'update', view: checkingView(sourceName) });
    if (!(await firstDelivery(ctx.store, submissionKey(body)))) return;

    const text = await sourceText(ctx, values);
    const table = text.ok
      ? await readJobTable(text.text, values.kind, linkDefaults(values), new Date())
      : { ok: false as const, problem: text.problem };
    if (!table.ok) {
      noteOutcome(request, 'invalid_input');
      const problem = `*${sourceName === 'pasted text' ? 'The pasted text' : 'The file'} cannot be used.* ${escapeMrkdwn(table.problem)}`;
      await updateModal(ctx.client, view.id, bulkFormView({ kind: values.kind, problem }), ctx.logger);
      return;
    }
    const job = await ctx.store.bulkJobs.createDraft({
      teamId: body.team?.id ?? body.user.team_id,
      requesterId: body.user.id,
      kind: values.kind,
      sourceName,
      columns: table.columns,
      defaults: values.kind === 'links' ? { ...linkDefaults(values) } : {},
      rows: table.rows,
    });
    const shown = await ctx.store.bulkJobs.rows(job.id, { statuses: ['invalid'], limit: ERRORS_SHOWN });
    await updateModal(ctx.client, view.id, previewView(job, shown), ctx.logger);
  };
}

function linkDefaults(values: BulkFormValues): LinkDefaults {
  return {
    ...(values.nftId ? { nftId: values.nftId } : {}),
    walletOptions: (values.walletOptions ?? 'CUSTODIAL') as CreateLinkRequest['walletOptions'],
    type: (values.type ?? 'GENERAL') as CreateLinkRequest['type'],
    isActive: values.active,
    ...(values.claimStart ? { startDate: values.claimStart.toISOString() } : {}),
    ...(values.claimEnd ? { endDate: values.claimEnd.toISOString() } : {}),
  };
}

type SourceText = { ok: true; text: string } | { ok: false; problem: string };

async function sourceText(ctx: BulkContext, values: BulkFormValues): Promise<SourceText> {
  const file = values.files[0];
  if (!file) return { ok: true, text: values.pasted ?? '' };
  const download = await downloadSlackFile(file.downloadUrl, {
    botToken: ctx.botToken,
    slackApiUrl: ctx.slackApiUrl,
    maxBytes: MAX_FILE_BYTES,
  });
  if (download.ok) return { ok: true, text: download.bytes.toString('utf8') };
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
