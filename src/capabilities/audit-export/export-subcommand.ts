import type { Subcommand } from '../../platform/slack/commands/command-registry.js';
import { escapeMrkdwn } from '../../platform/blocks/mrkdwn.js';
import { invalidInput, refused } from '../../platform/slack/pipeline/request-ended.js';
import type { AuditViewers } from './audit-viewers.js';
import { describeRequest, parseExportArgs } from './export-request.js';
import { type ExportContext, runExport } from './run-export.js';

const USAGE = 'Usage: `/mintlink audit [days] [operation] [@user]`, e.g. `/mintlink audit 90 customers.delete`.';

/**
 * `/mintlink audit [days] [operation] [@user]`: who may export is checked first (Slack answers within its
 * deadline, well inside the 3 s to ack), then the arguments; the ack says the file is on its way, and the
 * export runs after it.
 */
export function exportSubcommand(ctx: ExportContext, viewers: AuditViewers): Subcommand {
  return {
    name: 'audit',
    arguments: '[days] [operation] [@user]',
    description:
      'Export the audit log as a CSV file to your DM (default the last 30 days; audit viewers only), e.g. `audit 90 customers.delete`.',
    run: async ({ ack, command, args, teamId }) => {
      const check = await viewers.check(command.user_id, teamId);
      if (!check.viewer) throw refused(viewers.refusal(check, teamId));
      const parsed = parseExportArgs(args);
      if (!parsed.ok) throw invalidInput(`:warning: ${escapeMrkdwn(parsed.problem)}\n${USAGE}`);
      await ack({
        response_type: 'ephemeral',
        text: `:hourglass_flowing_sand: Exporting the audit log (${describeRequest(parsed.request)}). The CSV file will arrive in your direct messages with the app.`,
      });
      await runExport(ctx, { userId: command.user_id, teamId }, parsed.request);
    },
  };
}
