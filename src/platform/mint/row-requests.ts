import { customerIdProblems, splitCustomerIds } from './customer-ids.js';
import {
  LINK_CUSTOMER_LIMIT,
  LINK_TYPES,
  WALLET_OPTIONS,
  createLinkRequestSchema,
  createWalletRequestSchema,
  type CreateLinkRequest,
  type CreateWalletRequest,
} from './schemas.js';

/*
 * Rows of a table (a CSV file) read as Mint requests: each cell is text, checked and turned into the
 * request's field, then the whole request is checked with the one schema of that request. A problem is
 * reported against the column it comes from.
 */

/** The link fields of the spec, as column names. */
export const LINK_COLUMNS = [
  'email',
  'customerId',
  'maxCheckoutQuantity',
  'walletOptions',
  'startDate',
  'endDate',
  'nftId',
  'type',
  'isActive',
] as const;
export type LinkColumn = (typeof LINK_COLUMNS)[number];

export const WALLET_COLUMNS = ['userId'] as const;
export type WalletColumn = (typeof WALLET_COLUMNS)[number];

/** Values every row of a table starts from; a non-empty cell of the row replaces the default. */
export type LinkDefaults = Partial<
  Pick<CreateLinkRequest, 'nftId' | 'walletOptions' | 'type' | 'isActive' | 'startDate' | 'endDate'>
>;

export interface CellProblem<C extends string> {
  column: C;
  message: string;
}

export type RowRequest<R, C extends string> = { ok: true; request: R } | { ok: false; problems: CellProblem<C>[] };

/** The cells of one row by column; a missing column or an empty cell means "not given". */
export type RowCells<C extends string> = Partial<Record<C, string>>;

/**
 * A link request from one row: defaults, then the row's cells. `now`: a claim that already ended is refused,
 * as the form refuses it.
 */
export function linkRowRequest(
  cells: RowCells<LinkColumn>,
  defaults: LinkDefaults,
  now: Date,
): RowRequest<CreateLinkRequest, LinkColumn> {
  const problems: CellProblem<LinkColumn>[] = [];
  const given = (column: LinkColumn) => {
    const value = cells[column]?.trim();
    return value ? value : undefined;
  };
  const request: Record<string, unknown> = { type: 'GENERAL', isActive: true, ...defaults };
  const text = (column: 'email' | 'nftId' | 'startDate' | 'endDate') => {
    const value = given(column);
    if (value !== undefined) request[column] = value;
  };
  text('email');
  text('nftId');
  text('startDate');
  text('endDate');
  for (const [column, known] of [
    ['walletOptions', WALLET_OPTIONS],
    ['type', LINK_TYPES],
  ] as const) {
    const value = given(column);
    if (value === undefined) continue;
    const match = known.find((k) => k === value.toUpperCase());
    if (match) request[column] = match;
    else problems.push({ column, message: `must be ${known.join(' or ')}` });
  }
  const active = given('isActive');
  if (active !== undefined) {
    const flag = BOOLEAN_WORDS[active.toLowerCase()];
    if (flag === undefined) problems.push({ column: 'isActive', message: 'must be true or false' });
    else request.isActive = flag;
  }
  const quantity = given('maxCheckoutQuantity');
  if (quantity !== undefined) {
    if (/^\d{1,15}$/.test(quantity)) request.maxCheckoutQuantity = Number(quantity);
    else problems.push({ column: 'maxCheckoutQuantity', message: 'must be a whole number, 1 or more' });
  }
  const ids = given('customerId');
  if (ids !== undefined) {
    const list = splitCustomerIds(ids);
    const idProblem = customerIdProblems(list, { limit: LINK_CUSTOMER_LIMIT });
    if (idProblem) problems.push({ column: 'customerId', message: idProblem.replace(/\.$/, '') });
    else request.customerId = list;
  }

  if (request.nftId === undefined) problems.push({ column: 'nftId', message: NFT_REQUIRED });
  const parsed = createLinkRequestSchema.safeParse(request);
  for (const issue of parsed.success ? [] : parsed.error.issues) {
    // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- zod's issue path of this schema's object starts with one of its own keys
    const column = String(issue.path[0]) as LinkColumn;
    if (problems.some((p) => p.column === column)) continue;
    problems.push({
      column,
      message: column === 'nftId' && issue.message === 'is required' ? NFT_REQUIRED : issue.message,
    });
  }
  const end = typeof request.endDate === 'string' ? Date.parse(request.endDate) : Number.NaN;
  if (end <= now.getTime() && !problems.some((p) => p.column === 'endDate')) {
    problems.push({ column: 'endDate', message: 'has already passed' });
  }
  if (problems.length > 0 || !parsed.success) return { ok: false, problems };
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- the schema accepted this very object just above (parsed.success)
  return { ok: true, request: request as CreateLinkRequest };
}

/** A wallet request from one row: an empty userId means a new user. */
export function walletRowRequest(cells: RowCells<WalletColumn>): RowRequest<CreateWalletRequest, WalletColumn> {
  const userId = cells.userId?.trim();
  if (!userId) return { ok: true, request: {} };
  const parsed = createWalletRequestSchema.safeParse({ userId });
  if (!parsed.success) return { ok: false, problems: [{ column: 'userId', message: USER_ID_SHAPE }] };
  return { ok: true, request: { userId } };
}

const NFT_REQUIRED = 'is required (in the row, or as the default NFT ID)';
const USER_ID_SHAPE =
  'must be 1-128 letters, digits or . _ : @ + - (starting with a letter or digit), or empty for a new user';

const BOOLEAN_WORDS: Record<string, boolean> = {
  true: true,
  false: false,
  yes: true,
  no: false,
  '1': true,
  '0': false,
};
