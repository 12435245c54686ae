import type { ViewOutput } from '@slack/bolt';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LINK_BLOCKS, checkLinkForm, readLinkForm } from '../../../src/capabilities/links/link-form.js';
import { createLinkRequestSchema } from '../../../src/platform/mint/schemas.js';
import { INPUT_ACTION_ID } from '../../../src/platform/blocks/inputs.js';

/*
 * The "Create mint link" form with whatever a submission can carry: Slack's state shapes with any values in
 * them (long, malformed, forged), missing blocks and blocks the form does not have.
 */

const text = (extra: fc.Arbitrary<string>) =>
  fc.oneof(
    fc.constant(undefined),
    fc.constant({ type: 'plain_text_input', value: null }),
    fc.record({
      type: fc.constant('plain_text_input'),
      value: fc.oneof(
        extra,
        fc.string({ maxLength: 40, unit: 'binary' }),
        fc.string({ minLength: 200, maxLength: 5000 }),
      ),
    }),
  );
const select = (known: string[]) =>
  fc.oneof(
    fc.constant(undefined),
    fc.constant({ type: 'static_select', selected_option: null }),
    fc.record({
      type: fc.constant('static_select'),
      selected_option: fc.record({
        text: fc.constant({ type: 'plain_text', text: 'x' }),
        value: fc.oneof(fc.constantFrom(...known), fc.string({ maxLength: 20 })),
      }),
    }),
  );
const dateTime = fc.oneof(
  fc.constant(undefined),
  fc.constant({ type: 'datetimepicker', selected_date_time: null }),
  fc.record({
    type: fc.constant('datetimepicker'),
    // Slack's picker: whole seconds, from the past into the far future.
    selected_date_time: fc.integer({ min: 0, max: 32_503_680_000 }),
  }),
);
const checkboxes = fc.oneof(
  fc.constant(undefined),
  fc.record({
    type: fc.constant('checkboxes'),
    selected_options: fc.array(fc.record({ value: fc.oneof(fc.constant('active'), fc.string({ maxLength: 8 })) }), {
      maxLength: 3,
    }),
  }),
);

const stateValues = fc
  .record({
    [LINK_BLOCKS.nftId]: text(fc.constantFrom('nft-1', ' nft-2 ', '<!channel>', 'x'.repeat(201))),
    [LINK_BLOCKS.wallet]: select(['CUSTODIAL']),
    [LINK_BLOCKS.type]: select(['GENERAL']),
    [LINK_BLOCKS.email]: text(fc.oneof(fc.emailAddress(), fc.constantFrom('ann@', '<a@b.c>'))),
    [LINK_BLOCKS.customerIds]: text(
      fc
        .array(fc.oneof(fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:@+-]{0,20}$/), fc.constantFrom('b@d!', '-x')), {
          maxLength: 30,
        })
        .map((ids) => ids.join(', ')),
    ),
    [LINK_BLOCKS.maxQuantity]: text(
      fc.oneof(
        fc.integer({ min: -5, max: 1_000_000 }).map(String),
        fc.constantFrom('1e3', '0x10', '1.5', '99999999999999999999', 'Infinity', 'NaN', ' 7 ', ''),
      ),
    ),
    [LINK_BLOCKS.claimStart]: dateTime,
    [LINK_BLOCKS.claimEnd]: dateTime,
    [LINK_BLOCKS.active]: checkboxes,
    unrelated_block: text(fc.string()),
  })
  .map((blocks) => {
    const values: Record<string, Record<string, unknown>> = {};
    for (const [block, state] of Object.entries(blocks)) if (state) values[block] = { [INPUT_ACTION_ID]: state };
    return values as ViewOutput['state']['values'];
  });

const FORM_BLOCKS = new Set<string>(Object.values(LINK_BLOCKS));

describe('the mint link form, property-based', () => {
  it('reads any submitted state into a clear error map or a request the shared schema accepts', () => {
    fc.assert(
      fc.property(
        stateValues,
        fc.date({ min: new Date(0), max: new Date('2100-01-01'), noInvalidDate: true }),
        (values, now) => {
          const checked = checkLinkForm(readLinkForm(values), now);
          if (!checked.ok) {
            expect(Object.keys(checked.errors).length).toBeGreaterThan(0);
            for (const [block, error] of Object.entries(checked.errors)) {
              expect(FORM_BLOCKS.has(block)).toBe(true);
              expect(error.length).toBeGreaterThan(0);
              expect(error.length).toBeLessThanOrEqual(2000);
            }
            return;
          }
          const parsed = createLinkRequestSchema.safeParse(checked.request);
          expect(parsed.success).toBe(true);
          if (checked.request.endDate) expect(Date.parse(checked.request.endDate)).toBeGreaterThan(now.getTime());
        },
      ),
      { numRuns: 300 },
    );
  });
});
