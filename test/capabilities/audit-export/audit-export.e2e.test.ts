/*
 * The audit log export over each transport, end to end: `/mintlink audit` as Slack sends it over HTTP (signed)
 * and Socket Mode, and the CSV file the app uploads into the viewer's DM. Every behaviour of the export is in
 * audit-export.test.ts; an export of 60,000 entries and the app's memory in large-export.e2e.test.ts.
 */
import { parse } from 'csv-parse/sync';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { AUDIT_CSV_COLUMNS } from '../../../src/capabilities/audit-export/audit-csv.js';
import { WALLET_BLOCKS } from '../../../src/capabilities/wallets/wallet-form.js';
import { useApp, useFakes } from '../../kit/fakes.js';
import { expectNoRejectedSlackCalls, expectNoSecretsLeaked } from '../../kit/slack-checks.js';
import { TEST_USER_ID } from '../../kit/slack-ids.js';

const VIEWER = 'U0AUDIT01';
const VIEWER_DM = 'D0AUDIT01';

describe.each(['http', 'socket'] as const)('audit log export (%s mode)', (mode) => {
  const fakes = useFakes();
  const running = useApp(fakes, mode, { env: { AUDIT_VIEWERS: VIEWER } });

  afterEach(() => expectNoRejectedSlackCalls(fakes.slack));
  afterAll(() => expectNoSecretsLeaked(fakes.slack, running.app));

  it('refuses someone who is not an audit viewer, and exports nothing', async () => {
    const { ack } = await running.app.command('audit', { user_id: TEST_USER_ID });
    expect(ack).toMatchObject({
      response_type: 'ephemeral',
      text: `:no_entry: Only the audit viewers (<@${VIEWER}>) can export the audit log. Nothing was exported.`,
    });
    await running.app.waitForIdle();
    expect(fakes.slack.callsTo('files.getUploadURLExternal')).toEqual([]);
  });

  it('uploads the log as CSV into the viewer’s DM, with the entry of what was just done', async () => {
    await running.app.submitFormFromCommand('wallet', { [WALLET_BLOCKS.customerId]: 'cus_audited' });

    const { ack } = await running.app.command('audit', { user_id: VIEWER });
    expect(ack?.text).toContain('Exporting the audit log (the last 30 days)');
    const upload = await fakes.slack.waitFor(() => fakes.slack.uploadsTo(VIEWER_DM)[0], 15_000, 'the export');
    const [header, ...rows]: string[][] = parse(fakes.slack.uploadedText(upload.fileId));
    expect(header).toEqual([...AUDIT_CSV_COLUMNS]);
    const col = (name: (typeof AUDIT_CSV_COLUMNS)[number]) => AUDIT_CSV_COLUMNS.indexOf(name);
    expect(rows.map((r) => [r[col('who')], r[col('operation')], r[col('outcome')]])).toContainEqual([
      TEST_USER_ID,
      'wallet.create',
      'succeeded',
    ]);
    await running.app.waitForIdle();
  });
});
