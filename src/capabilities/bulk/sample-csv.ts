import { writeCsvFile } from '../../platform/csv/write-csv-file.js';
import { LINK_COLUMNS, WALLET_COLUMNS } from '../../platform/mint/row-requests.js';
import type { ButtonRequest } from '../../platform/slack/pipeline/listen.js';
import { upstreamFailed } from '../../platform/slack/pipeline/request-ended.js';
import { uploadFile } from '../../platform/slack/web-api/upload-file.js';
import { slackErrorText } from '../../platform/blocks/slack-error-text.js';
import { updateModal } from '../../platform/blocks/update-modal.js';
import type { BulkKind } from '../../platform/store/bulk-jobs/jobs.js';
import type { BulkContext } from './bulk-context.js';
import { bulkFormView } from './bulk-form.js';

const DAY_MS = 24 * 60 * 60_000;

/** One sample file: what it is called, what its introduction says, and its table. */
export interface SampleCsv {
  kind: BulkKind;
  filename: string;
  title: string;
  introduction: string;
  header: readonly string[];
  rows: ReadonlyArray<readonly string[]>;
}

/**
 * The sample files "Download a sample CSV" sends: for each kind, every column the check reads and one example
 * row it accepts (a claim from tomorrow for 30 days, so the example stays valid whenever it is sent). What
 * the columns mean is in the introduction, not in the file: a comment line would be read as a row.
 */
export function sampleCsvs(now: Date): SampleCsv[] {
  const day = (offset: number, hour: number) => {
    const date = new Date(now.getTime() + offset * DAY_MS);
    date.setUTCHours(hour, 0, 0, 0);
    return date.toISOString().replace('.000Z', 'Z');
  };
  const link: Record<(typeof LINK_COLUMNS)[number], string> = {
    email: 'jane.doe@example.com',
    customerId: 'cust-1001;cust-1002',
    maxCheckoutQuantity: '1',
    walletOptions: 'CUSTODIAL',
    startDate: day(1, 9),
    endDate: day(31, 17),
    nftId: 'your-nft-id',
    type: 'GENERAL',
    isActive: 'true',
  };
  return [
    {
      kind: 'links',
      filename: 'mintlink-sample-links.csv',
      title: 'Sample CSV: mint links',
      introduction:
        'A sample CSV for *Bulk create* → *Mint links*: every column the app reads, and one example row. ' +
        'Replace the example values (the NFT ID above all) with yours. An empty cell takes the default of the form ' +
        '(NFT ID, wallet, link type, status, claim dates), and a column you do not need can be left out. ' +
        '`customerId` holds several IDs separated by `;` or spaces; dates are ISO 8601 with a time zone.',
      header: LINK_COLUMNS,
      rows: [LINK_COLUMNS.map((column) => link[column])],
    },
    {
      kind: 'wallets',
      filename: 'mintlink-sample-wallets.csv',
      title: 'Sample CSV: wallets',
      introduction:
        'A sample CSV for *Bulk create* → *Wallets*: the one column the app reads, and one example row. ' +
        'The column `userId` is the customer ID (the *Customer ID* of the *Create wallet* form): put yours in place ' +
        'of the example; an empty one creates a new user with the wallet.',
      header: WALLET_COLUMNS,
      rows: [['user-1001']],
    },
  ];
}

/**
 * "Download a sample CSV" on the bulk form. A modal cannot download a file: the samples (one file per kind)
 * go to the clicker's DM with the app, as the results and errors files do, and the form says so in place of
 * the button (what the person typed in it stays: the update keeps its inputs).
 */
export function handleSampleCsv(ctx: BulkContext) {
  return async ({ body, client }: ButtonRequest): Promise<void> => {
    const userId = body.user.id;
    try {
      for (const sample of sampleCsvs(new Date())) {
        const file = await writeCsvFile(sample.header, sample.rows);
        try {
          await ctx.work.track(
            uploadFile(client, {
              to: userId,
              filename: sample.filename,
              title: sample.title,
              initialComment: sample.introduction,
              source: { path: file.path },
            }),
          );
        } finally {
          await file.remove();
        }
      }
    } catch (error) {
      ctx.logger.warn({ err: error }, 'could not send the sample CSV files');
      throw upstreamFailed(`:warning: The sample CSV files could not be sent: ${slackErrorText(error)}`);
    }
    const view = body.view;
    if (view) await updateModal(client, view.id, bulkFormView({ sampleSent: true }), ctx.logger, view.hash);
  };
}
