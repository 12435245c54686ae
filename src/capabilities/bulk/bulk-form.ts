import type { ViewOutput } from '@slack/bolt';
import { BULK } from './actions.js';
import { buttonOf } from '../../platform/slack/pipeline/declarations.js';
import type { KnownBlock, ModalView } from '@slack/types';
import { LINK_COLUMNS, WALLET_COLUMNS } from '../../platform/mint/row-requests.js';
import { LINK_TYPES, WALLET_OPTIONS } from '../../platform/mint/schemas.js';
import type { BulkKind } from '../../platform/store/bulk-jobs/jobs.js';
import { actionsRow, context, problemBanner, section } from '../../platform/blocks/blocks.js';
import { enumChoices } from '../../platform/blocks/choices.js';
import { checkboxInput, dateTimeInput, fileInput, selectInput, textInput } from '../../platform/blocks/inputs.js';
import { modal } from '../../platform/blocks/modal.js';
import {
  checkedValues,
  dateTimeValue,
  filesValue,
  selectedValue,
  textValue,
  type AttachedFile,
} from '../../platform/blocks/view-state.js';

/** At most this many rows in one job, and this many bytes in one file (the issue's limits). */
export const MAX_ROWS = 5_000;
export const MAX_FILE_BYTES = 2 * 1024 * 1024;
/**
 * What reading one file's table may take (rows x cells x bytes, see TABLE_COSTS in csv/read-csv.ts). A file
 * within the limits above whose rows keep to the header's columns (9 at most) stays under 6 MB by that count;
 * rows of hundreds of tiny cells, which cost many times their bytes, are refused.
 */
export const MAX_TABLE_BYTES = 8 * 1024 * 1024;
/** Unstarted checks one person keeps at once: a newer one drops the oldest, and its preview says so. */
export const DRAFTS_KEPT = 3;
const PASTE_MAX_CHARS = 3_000;

export const BULK_BLOCKS = {
  kind: 'bulk_kind',
  file: 'bulk_file',
  paste: 'bulk_paste',
  nftId: 'bulk_nft_id',
  wallet: 'bulk_wallet',
  type: 'bulk_link_type',
  active: 'bulk_active',
  claimStart: 'bulk_claim_start',
  claimEnd: 'bulk_claim_end',
} as const;

const KINDS = [
  { value: 'links', label: 'Mint links' },
  { value: 'wallets', label: 'Wallets' },
];
const ACTIVE = { value: 'active', label: 'Active: links can be used as soon as they are created' };

/** What the form holds when submitted. */
export interface BulkFormValues {
  kind: BulkKind;
  files: AttachedFile[];
  pasted: string | undefined;
  nftId: string | undefined;
  walletOptions: string | undefined;
  type: string | undefined;
  active: boolean;
  claimStart: Date | undefined;
  claimEnd: Date | undefined;
}

/**
 * The "Bulk create" modal: what to create, the CSV (a file or pasted text) with a sample to start from, and
 * the links' shared defaults. `sampleSent`: the sample files are in the person's DM (said instead of the
 * button).
 */
export function bulkFormView(options: { kind?: BulkKind; problem?: string; sampleSent?: boolean } = {}): ModalView {
  const blocks: KnownBlock[] = [
    ...(options.problem ? [problemBanner(options.problem)] : []),
    selectInput({
      blockId: BULK_BLOCKS.kind,
      label: 'What to create',
      hint: 'One per row of the CSV.',
      choices: KINDS,
      initial: options.kind ?? 'links',
    }),
    fileInput({
      blockId: BULK_BLOCKS.file,
      label: 'CSV file',
      optional: true,
      maxFiles: 1,
      filetypes: ['csv', 'txt'],
      hint: `One file, at most 2 MB and ${MAX_ROWS.toLocaleString('en-US')} rows, UTF-8, comma-separated, with a header row.`,
    }),
    textInput({
      blockId: BULK_BLOCKS.paste,
      label: 'Or paste CSV text',
      optional: true,
      multiline: true,
      hint: 'Instead of a file, for a few rows (up to 3,000 characters): the header row first.',
    }),
    context(
      `*Mint link columns:* ${LINK_COLUMNS.map((c) => `\`${c}\``).join(', ')}; \`customerId\` holds several IDs separated by \`;\` or spaces, dates are ISO 8601 with a time zone (\`2030-01-31T09:00:00Z\`).`,
      `*Wallet column:* ${WALLET_COLUMNS.map((c) => `\`${c}\``).join(', ')}, the customer ID (empty: a new user). Header names in any case; a column not listed is refused.`,
    ),
    options.sampleSent
      ? context(
          ':white_check_mark: Two sample CSV files, one for mint links and one for wallets, are in your DM with the app.',
        )
      : actionsRow('bulk_sample', buttonOf(BULK.buttons.sampleCsv)),
    section('*Defaults for mint links* (a row’s own value wins; ignored for wallets)'),
    textInput({
      blockId: BULK_BLOCKS.nftId,
      label: 'NFT ID',
      optional: true,
      maxLength: 200,
      hint: 'For rows without an nftId.',
    }),
    selectInput({
      blockId: BULK_BLOCKS.wallet,
      label: 'Wallet',
      choices: enumChoices(WALLET_OPTIONS),
      initial: WALLET_OPTIONS[0],
    }),
    selectInput({
      blockId: BULK_BLOCKS.type,
      label: 'Link type',
      choices: enumChoices(LINK_TYPES),
      initial: 'GENERAL',
    }),
    checkboxInput({ blockId: BULK_BLOCKS.active, label: 'Status', choice: ACTIVE, checked: true }),
    dateTimeInput({
      blockId: BULK_BLOCKS.claimStart,
      label: 'Claim starts',
      optional: true,
      hint: 'In your time zone.',
    }),
    dateTimeInput({
      blockId: BULK_BLOCKS.claimEnd,
      label: 'Claim ends',
      optional: true,
      hint: 'In your time zone; after the start and in the future.',
    }),
  ];
  return modal({
    callbackId: BULK.forms.check.callbackId,
    title: 'Bulk create',
    submit: 'Check',
    close: 'Cancel',
    blocks,
  });
}

export function readBulkForm(values: ViewOutput['state']['values']): BulkFormValues {
  return {
    kind: selectedValue(values, BULK_BLOCKS.kind) === 'wallets' ? 'wallets' : 'links',
    files: filesValue(values, BULK_BLOCKS.file),
    pasted: textValue(values, BULK_BLOCKS.paste),
    nftId: textValue(values, BULK_BLOCKS.nftId),
    walletOptions: selectedValue(values, BULK_BLOCKS.wallet),
    type: selectedValue(values, BULK_BLOCKS.type),
    active: checkedValues(values, BULK_BLOCKS.active).includes(ACTIVE.value),
    claimStart: dateTimeValue(values, BULK_BLOCKS.claimStart),
    claimEnd: dateTimeValue(values, BULK_BLOCKS.claimEnd),
  };
}

/**
 * What can be said on the form itself, before anything is read: one source (a file or pasted text), a file
 * within the size limit, claim dates that make sense. Empty when the form may go on.
 */
export function formErrors(values: BulkFormValues, now: Date): Record<string, string> {
  const errors: Record<string, string> = {};
  const file = values.files[0];
  if (values.files.length > 1) errors[BULK_BLOCKS.file] = 'Attach one file only.';
  else if (file && values.pasted) errors[BULK_BLOCKS.paste] = 'Give a file or pasted text, not both.';
  else if (!file && !values.pasted) errors[BULK_BLOCKS.file] = 'Attach a CSV file, or paste CSV text below.';
  // Slack's box holds 3,000 characters; more comes only from a forged payload, and gets the form's answer.
  if (values.pasted && values.pasted.length > PASTE_MAX_CHARS && !errors[BULK_BLOCKS.paste])
    errors[BULK_BLOCKS.paste] = 'Paste at most 3,000 characters; attach a file for more.';
  if (file && !(file.size <= MAX_FILE_BYTES)) {
    const size = Number.isFinite(file.size) ? ` is ${(file.size / 1024 / 1024).toFixed(1)} MB:` : ' is too large:';
    errors[BULK_BLOCKS.file] = `The file${size} at most 2 MB per file. Split it into smaller files.`;
  }
  if (values.kind === 'links') {
    for (const [date, block] of [
      [values.claimStart, BULK_BLOCKS.claimStart],
      [values.claimEnd, BULK_BLOCKS.claimEnd],
    ] as const) {
      if (date && Number.isNaN(date.getTime())) errors[block] = 'Choose a valid date and time.';
    }
    const { claimStart: start, claimEnd: end } = values;
    if (!errors[BULK_BLOCKS.claimEnd] && end) {
      if (end.getTime() <= now.getTime()) errors[BULK_BLOCKS.claimEnd] = 'The claim end has already passed.';
      else if (start && end.getTime() <= start.getTime())
        errors[BULK_BLOCKS.claimEnd] = 'The claim must end after it starts.';
    }
  }
  return errors;
}
