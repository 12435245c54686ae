import type { ViewOutput } from '@slack/bolt';
import { LINKS } from './actions.js';
import type { KnownBlock, ModalView } from '@slack/types';
import {
  CUSTOMER_ID_PATTERN,
  LINK_CUSTOMER_LIMIT,
  LINK_TYPES,
  WALLET_OPTIONS,
  createLinkRequestSchema,
  type CreateLinkRequest,
} from '../../platform/mint/schemas.js';
import { problemBanner } from '../../platform/blocks/blocks.js';
import { enumChoices } from '../../platform/blocks/choices.js';
import {
  checkboxInput,
  dateTimeInput,
  emailInput,
  selectInput,
  textInput,
  wholeNumberInput,
} from '../../platform/blocks/inputs.js';
import { modal } from '../../platform/blocks/modal.js';
import { checkedValues, dateTimeValue, selectedValue, textValue } from '../../platform/blocks/view-state.js';
import { customerIdProblems, splitCustomerIds } from '../../platform/mint/customer-ids.js';

/** Block ids of the form's inputs: inline errors are keyed by them. */
export const LINK_BLOCKS = {
  nftId: 'nft_id',
  wallet: 'wallet',
  type: 'link_type',
  email: 'email',
  customerIds: 'customer_ids',
  maxQuantity: 'max_quantity',
  claimStart: 'claim_start',
  claimEnd: 'claim_end',
  active: 'active',
} as const;

const ACTIVE = { value: 'active', label: 'Active: the link can be used as soon as it is created' };

/** What the user entered, as entered (so a failed attempt can show the form again, filled). */
export interface LinkFormValues {
  nftId?: string | undefined;
  walletOptions?: string | undefined;
  type?: string | undefined;
  email?: string | undefined;
  customerIdsText?: string | undefined;
  maxQuantity?: string | undefined;
  claimStart?: Date | undefined;
  claimEnd?: Date | undefined;
  active: boolean;
}

/** The "Create mint link" modal, optionally filled and with a problem shown at the top. */
export function linkFormView(values: Partial<LinkFormValues> = {}, problem?: string): ModalView {
  const blocks: KnownBlock[] = [
    ...(problem ? [problemBanner(problem)] : []),
    textInput({
      blockId: LINK_BLOCKS.nftId,
      label: 'NFT ID',
      hint: 'The identifier of the NFT to mint.',
      initial: values.nftId,
      maxLength: 200,
      placeholder: 'e.g. 6f1c2d3e-...',
    }),
    selectInput({
      blockId: LINK_BLOCKS.wallet,
      label: 'Wallet',
      hint: 'Where the minted NFT is kept.',
      choices: enumChoices(WALLET_OPTIONS),
      initial: values.walletOptions ?? WALLET_OPTIONS[0],
    }),
    selectInput({
      blockId: LINK_BLOCKS.type,
      label: 'Link type',
      hint: 'The kind of mint link; General is the usual one.',
      choices: enumChoices(LINK_TYPES),
      initial: values.type ?? 'GENERAL',
    }),
    emailInput({
      blockId: LINK_BLOCKS.email,
      label: 'Recipient email',
      optional: true,
      hint: 'The user the link is for. Leave empty if the link is for customers below or for anyone.',
      initial: values.email,
      placeholder: 'name@example.com',
    }),
    textInput({
      blockId: LINK_BLOCKS.customerIds,
      label: 'Customer IDs',
      optional: true,
      multiline: true,
      hint: 'The customers the link is for: several IDs separated by commas, spaces or new lines.',
      initial: values.customerIdsText,
    }),
    wholeNumberInput({
      blockId: LINK_BLOCKS.maxQuantity,
      label: 'Max checkout quantity',
      optional: true,
      min: 1,
      hint: 'The most NFTs one checkout may claim: a whole number, 1 or more.',
      initial: values.maxQuantity,
    }),
    dateTimeInput({
      blockId: LINK_BLOCKS.claimStart,
      label: 'Claim starts',
      optional: true,
      hint: 'In your time zone. Leave empty for no start date.',
      initialUnixSeconds: unixSeconds(values.claimStart),
    }),
    dateTimeInput({
      blockId: LINK_BLOCKS.claimEnd,
      label: 'Claim ends',
      optional: true,
      hint: 'In your time zone; after the start and in the future. Leave empty for no end date.',
      initialUnixSeconds: unixSeconds(values.claimEnd),
    }),
    checkboxInput({
      blockId: LINK_BLOCKS.active,
      label: 'Status',
      hint: 'Uncheck to create the link inactive.',
      choice: ACTIVE,
      checked: values.active ?? true,
    }),
  ];
  return modal({
    callbackId: LINKS.forms.create.callbackId,
    title: 'Create mint link',
    submit: 'Create',
    close: 'Cancel',
    blocks,
  });
}

export function readLinkForm(values: ViewOutput['state']['values']): LinkFormValues {
  return {
    nftId: textValue(values, LINK_BLOCKS.nftId),
    walletOptions: selectedValue(values, LINK_BLOCKS.wallet),
    type: selectedValue(values, LINK_BLOCKS.type),
    email: textValue(values, LINK_BLOCKS.email),
    customerIdsText: textValue(values, LINK_BLOCKS.customerIds),
    maxQuantity: textValue(values, LINK_BLOCKS.maxQuantity),
    claimStart: dateTimeValue(values, LINK_BLOCKS.claimStart),
    claimEnd: dateTimeValue(values, LINK_BLOCKS.claimEnd),
    active: checkedValues(values, LINK_BLOCKS.active).includes(ACTIVE.value),
  };
}

export type LinkFormCheck = { ok: true; request: CreateLinkRequest } | { ok: false; errors: Record<string, string> };

/**
 * Checks the form with the shared request schema plus what only makes sense at submission time (an end
 * already past). The request holds exactly the fields the user filled, plus walletOptions, type, isActive.
 */
export function checkLinkForm(values: LinkFormValues, now: Date): LinkFormCheck {
  const customerIds = splitCustomerIds(values.customerIdsText ?? '');
  const request: CreateLinkRequest = {
    nftId: values.nftId ?? '',
    // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- the form's static select offers only the request's own values
    walletOptions: values.walletOptions as CreateLinkRequest['walletOptions'],
    // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- the form's static select offers only the request's own values
    type: (values.type ?? 'GENERAL') as CreateLinkRequest['type'],
    isActive: values.active,
    ...(values.email ? { email: values.email } : {}),
    ...(customerIds.length > 0 ? { customerId: customerIds } : {}),
    // A whole number as the number input sends it: plain digits (a forged "1e3" or "0x10" is refused).
    ...(values.maxQuantity !== undefined
      ? { maxCheckoutQuantity: /^\d{1,15}$/.test(values.maxQuantity) ? Number(values.maxQuantity) : Number.NaN }
      : {}),
    ...(isValidDate(values.claimStart) ? { startDate: values.claimStart.toISOString() } : {}),
    ...(isValidDate(values.claimEnd) ? { endDate: values.claimEnd.toISOString() } : {}),
  };

  const errors: Record<string, string> = {};
  // What the form itself cannot send, checked all the same: a forged payload gets the form's answer.
  for (const [date, block] of [
    [values.claimStart, LINK_BLOCKS.claimStart],
    [values.claimEnd, LINK_BLOCKS.claimEnd],
  ] as const) {
    if (date && !isValidDate(date)) errors[block] = 'Choose a valid date and time.';
  }

  const parsed = createLinkRequestSchema.safeParse(request);
  for (const issue of parsed.success ? [] : parsed.error.issues) {
    const field = String(issue.path[0]);
    const block = FIELD_BLOCKS[field];
    if (block && !errors[block]) errors[block] = FIELD_ERRORS[field]?.(issue.message) ?? issue.message;
  }
  const idProblems = customerIdProblems(customerIds, { limit: LINK_CUSTOMER_LIMIT });
  if (idProblems) errors[LINK_BLOCKS.customerIds] = idProblems;
  if ((values.customerIdsText?.length ?? 0) > CUSTOMER_IDS_MAX_CHARS) {
    errors[LINK_BLOCKS.customerIds] = `Enter at most ${CUSTOMER_IDS_MAX_CHARS} characters of customer IDs.`;
  }
  if (values.claimEnd && values.claimEnd.getTime() <= now.getTime() && !errors[LINK_BLOCKS.claimEnd]) {
    errors[LINK_BLOCKS.claimEnd] = 'The claim end has already passed. Choose a time in the future.';
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, request };
}

/** The customer IDs box's own limit (Slack's for any text box). */
const CUSTOMER_IDS_MAX_CHARS = 3000;

function isValidDate(date: Date | undefined): date is Date {
  return date !== undefined && !Number.isNaN(date.getTime());
}

const FIELD_BLOCKS: Record<string, string> = {
  nftId: LINK_BLOCKS.nftId,
  walletOptions: LINK_BLOCKS.wallet,
  type: LINK_BLOCKS.type,
  email: LINK_BLOCKS.email,
  customerId: LINK_BLOCKS.customerIds,
  maxCheckoutQuantity: LINK_BLOCKS.maxQuantity,
  startDate: LINK_BLOCKS.claimStart,
  endDate: LINK_BLOCKS.claimEnd,
};

/** The schema's messages, said for a person filling a form. */
const FIELD_ERRORS: Record<string, (message: string) => string> = {
  nftId: (m) => (m === 'is required' ? 'Enter the ID of the NFT to mint.' : `The NFT ID ${m}.`),
  walletOptions: () => 'Choose a wallet.',
  type: () => 'Choose a link type.',
  email: () => 'Enter a valid email address, such as name@example.com.',
  maxCheckoutQuantity: () => 'Enter a whole number, 1 or more.',
  endDate: () => 'The claim must end after it starts.',
  startDate: () => 'Choose a valid start date and time.',
  customerId: () => `Customer IDs are letters, digits and . _ : @ + - (${CUSTOMER_ID_PATTERN.source}).`,
};

function unixSeconds(date: Date | undefined): number | undefined {
  return date ? Math.floor(date.getTime() / 1000) : undefined;
}
