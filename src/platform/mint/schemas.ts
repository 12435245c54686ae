import { z } from 'zod';

/*
 * Request shapes of the Mint Link and Wallet service, from its interface document (the only spec).
 * The modals, the client and the mock service all validate with these schemas.
 */

/** Known values only: the spec says other values exist but does not show them. */
export const WALLET_OPTIONS = ['CUSTODIAL'] as const;
export const LINK_TYPES = ['GENERAL'] as const;
export const TEMPLATE_ORDERS = ['asc', 'desc'] as const;
export const TEMPLATE_LIMIT = { min: 1, max: 50 } as const;

/**
 * The spec does not give the customer identifier's format. We accept what ids commonly look like (UUIDs,
 * numbers, slugs, emails, prefixed keys) and reject what cannot be an id: whitespace, quotes, commas,
 * control characters, more than 128 characters.
 */
export const CUSTOMER_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:@+-]{0,127}$/;
export const customerIdSchema = z
  .string()
  .regex(CUSTOMER_ID_PATTERN, 'must be 1-128 letters, digits or . _ : @ + - (starting with a letter or digit)');

/**
 * How many customer IDs one request may carry. The spec sets no bound; these keep a request, its approval
 * message and the audit entry readable, and a forged list of 20,000 IDs from costing anything.
 */
export interface CustomerIdLimit {
  max: number;
  /** Completes "… takes at most N": what the limit is for. */
  per: string;
  /** What to do instead. */
  advice: string;
}
export const LINK_CUSTOMER_LIMIT: CustomerIdLimit = {
  max: 100,
  per: 'a link',
  advice: 'Spread them over several links (a bulk job from a CSV makes many at once).',
};
export const DELETION_CUSTOMER_LIMIT: CustomerIdLimit = {
  max: 1000,
  per: 'one deletion request',
  advice: 'Split the list into several requests.',
};

/** "That is 120 customer IDs; a link takes at most 100. Spread them over…" */
export const tooManyCustomerIdsText = (count: number, limit: CustomerIdLimit) =>
  `That is ${count} customer IDs; ${limit.per} takes at most ${limit.max}. ${limit.advice}`;

const customerIdListSchema = (limit: CustomerIdLimit) =>
  z
    .array(customerIdSchema)
    .max(limit.max, {
      error: (issue) =>
        `must hold at most ${limit.max} customer IDs (${limit.per}); it has ${Array.isArray(issue.input) ? issue.input.length : 'more'}`,
    })
    .superRefine((ids, ctx) => {
      const seen = new Set<string>();
      ids.forEach((id, index) => {
        if (seen.has(id)) ctx.addIssue({ code: 'custom', message: `"${id}" is listed twice`, path: [index] });
        seen.add(id);
      });
    });

/** ISO 8601 timestamp with an explicit offset or Z. */
export const isoDateTimeSchema = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time' });

export const nftIdSchema = z.string().trim().min(1, 'is required').max(200, 'must be at most 200 characters');

/** Link (request body of POST /v1/link). `type` and `isActive` have defaults in the spec. */
export const createLinkRequestSchema = z
  .strictObject({
    email: z.email('must be an email address').optional(),
    customerId: customerIdListSchema(LINK_CUSTOMER_LIMIT).optional(),
    maxCheckoutQuantity: z.number().int('must be a whole number').min(1, 'must be at least 1').optional(),
    walletOptions: z.enum(WALLET_OPTIONS),
    startDate: isoDateTimeSchema.optional(),
    endDate: isoDateTimeSchema.optional(),
    nftId: nftIdSchema,
    type: z.enum(LINK_TYPES).default('GENERAL'),
    isActive: z.boolean().default(true),
  })
  .refine((link) => !link.startDate || !link.endDate || Date.parse(link.endDate) > Date.parse(link.startDate), {
    message: 'must be after the start',
    path: ['endDate'],
  });
export type CreateLinkRequest = z.input<typeof createLinkRequestSchema>;

/** Wallet (request body of POST /v1/wallet): without userId the service creates a new user. */
export const createWalletRequestSchema = z.strictObject({ userId: customerIdSchema.optional() });
export type CreateWalletRequest = z.input<typeof createWalletRequestSchema>;

/** Body of PATCH /v1/customer/delete: a JSON array of strings (the spec allows it to be empty). */
export const deleteCustomersRequestSchema = customerIdListSchema(DELETION_CUSTOMER_LIMIT);
export type DeleteCustomersRequest = z.input<typeof deleteCustomersRequestSchema>;

/** Path and query of GET /v1/nft/template/{contractId}. */
export const contractIdSchema = z
  .string()
  .min(1, 'is required')
  .max(200, 'must be at most 200 characters')
  .regex(/^[^\s\p{Cc}]+$/u, 'must not contain spaces')
  .refine((id) => id !== '.' && id !== '..', 'is not a contract id');

export const listTemplatesRequestSchema = z.strictObject({
  contractId: contractIdSchema,
  offset: z.number().int('must be a whole number').min(0, 'must be 0 or more').optional(),
  limit: z
    .number()
    .int('must be a whole number')
    .min(TEMPLATE_LIMIT.min, `must be from ${TEMPLATE_LIMIT.min} to ${TEMPLATE_LIMIT.max}`)
    .max(TEMPLATE_LIMIT.max, `must be from ${TEMPLATE_LIMIT.min} to ${TEMPLATE_LIMIT.max}`)
    .optional(),
  orderBy: z.enum(TEMPLATE_ORDERS, 'must be asc or desc').optional(),
});
export type ListTemplatesRequest = z.input<typeof listTemplatesRequestSchema>;
