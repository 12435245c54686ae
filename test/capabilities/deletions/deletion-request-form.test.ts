import type { ViewOutput } from '@slack/bolt';
import type { InputBlock } from '@slack/types';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_ID_BOXES,
  REASON_BLOCK,
  boxesOf,
  checkDeletionForm,
  deletionRequestView,
  idsBlock,
  readDeletionForm,
} from '../../../src/capabilities/deletions/deletion-request-form.js';
import { MAX_REASON_LENGTH } from '../../../src/capabilities/deletions/deletion-context.js';
import { unreachableQuorum } from '../../../src/capabilities/deletions/open-request.js';
import { DELETION_CUSTOMER_LIMIT } from '../../../src/platform/mint/schemas.js';
import { deleteCustomersRequestSchema } from '../../../src/platform/mint/schemas.js';
import { INPUT_ACTION_ID } from '../../../src/platform/blocks/inputs.js';
import { viewProblems } from '../../kit/block-kit-limits.js';
import { asText } from '../../../sandbox/src/as-text.js';

const boxesIn = (view: ReturnType<typeof deletionRequestView>) =>
  view.blocks.filter((b): b is InputBlock => b.type === 'input' && String(b.block_id).startsWith('customer_ids_'));
const initialOf = (box: InputBlock) => ('initial_value' in box.element ? asText(box.element.initial_value) : '');

describe('deletionRequestView', () => {
  const ruleOf = (view: ReturnType<typeof deletionRequestView>) => JSON.stringify(view.blocks.at(-1));

  it('says how many approvals an unreachable quorum needs, in words that agree with the number', () => {
    expect(unreachableQuorum({ users: ['U1'], userGroups: [] }, 'U1', 1)).toMatch(
      /^This request needs 1 approval, but only 0 of the approvers/,
    );
    expect(unreachableQuorum({ users: ['U1', 'U2'], userGroups: [] }, 'U1', 2)).toMatch(
      /^This request needs 2 approvals from different approvers, but only 1 of the approvers/,
    );
  });

  it('states the quorum in force', () => {
    expect(ruleOf(deletionRequestView({ quorum: { approvals: 1, large: undefined } }))).toContain(
      'Nothing is deleted until an approver other than you approves the request.',
    );
    expect(ruleOf(deletionRequestView({ quorum: { approvals: 2, large: undefined } }))).toContain(
      'Nothing is deleted until 2 approvers other than you approve the request.',
    );
    expect(
      ruleOf(deletionRequestView({ quorum: { approvals: 2, large: { approvals: 3, fromCustomers: 100 } } })),
    ).toContain('Nothing is deleted until 2 approvers other than you approve the request (3 from 100 customers up).');
  });

  it('prefills the IDs from the command, spread over boxes of at most 3000 characters', () => {
    const ids = Array.from({ length: 1000 }, (_, i) => `customer-${String(i).padStart(6, '0')}`);
    const view = deletionRequestView({ prefill: ids });
    const boxes = boxesIn(view);
    expect(boxes.length).toBeGreaterThan(1);
    expect(boxes.every((b) => initialOf(b).length <= 3000)).toBe(true);
    expect(boxes.flatMap((b) => initialOf(b).split('\n'))).toEqual(ids);
    expect(viewProblems(view)).toEqual([]);
    expect(JSON.parse(view.private_metadata ?? '{}')).toEqual({ boxes: boxes.length });
  });

  it('says how many prefilled IDs did not fit, rather than dropping them silently', () => {
    const ids = Array.from({ length: 400 }, (_, i) => `${'x'.repeat(100)}${i}`);
    const view = deletionRequestView({ prefill: ids });
    expect(boxesIn(view)).toHaveLength(MAX_ID_BOXES);
    expect(JSON.stringify(view.blocks[0])).toMatch(/Only the first \d+ of the 400 IDs given fit in this form/);
  });

  it('fills the form with no more IDs than one request takes, and says so (a message naming 1,500)', () => {
    const ids = Array.from({ length: 1500 }, (_, i) => `c-${i}`);
    const view = deletionRequestView({ prefill: ids });
    expect(boxesIn(view).flatMap((b) => initialOf(b).split('\n'))).toEqual(ids.slice(0, DELETION_CUSTOMER_LIMIT.max));
    expect(JSON.stringify(view.blocks[0])).toContain(
      'Only the first 1000 of the 1500 IDs given fit in this form (one deletion request takes at most 1000). Request the other 500 separately.',
    );
  });

  it('offers another box until there are ten', () => {
    expect(JSON.stringify(deletionRequestView({ boxes: 3 }))).toContain('deletion_add_ids_box');
    expect(JSON.stringify(deletionRequestView({ boxes: MAX_ID_BOXES }))).not.toContain('deletion_add_ids_box');
  });
});

describe('checkDeletionForm', () => {
  it('drops repeats (across boxes too) and counts them', () => {
    expect(checkDeletionForm({ boxes: ['a, b\na', 'c b'], reason: 'r' })).toEqual({
      ok: true,
      customerIds: ['a', 'b', 'c'],
      duplicatesRemoved: 2,
      reason: 'r',
    });
  });

  it('puts malformed IDs on the box that has them', () => {
    expect(checkDeletionForm({ boxes: ['a', 'b!'], reason: 'r' })).toEqual({
      ok: false,
      errors: { [idsBlock(2)]: '"b!" is not a customer ID (use letters, digits and . _ : @ + -).' },
    });
  });

  it('refuses no IDs, more than 1000, and no reason', () => {
    expect(checkDeletionForm({ boxes: [''], reason: undefined })).toEqual({
      ok: false,
      errors: {
        [idsBlock(1)]: 'Enter at least one customer ID.',
        [REASON_BLOCK]: 'Give a reason: the approvers read it.',
      },
    });
    const many = Array.from({ length: 1001 }, (_, i) => `c${i}`).join(' ');
    expect(checkDeletionForm({ boxes: [many], reason: 'r' })).toMatchObject({
      ok: false,
      errors: {
        [idsBlock(1)]: expect.stringContaining('That is 1001 customer IDs; one deletion request takes at most 1000'),
      },
    });
    const exactly = Array.from({ length: 1000 }, (_, i) => `c${i}`);
    expect(
      checkDeletionForm({ boxes: [exactly.slice(0, 500).join(' '), exactly.slice(500).join(' ')], reason: 'r' }),
    ).toMatchObject({ ok: true, customerIds: exactly });
  });

  it('checks on the server every limit the form sets: reason length, box length, number of boxes', () => {
    expect(checkDeletionForm({ boxes: ['c1'], reason: 'x'.repeat(50_000) })).toEqual({
      ok: false,
      errors: { [REASON_BLOCK]: 'The reason is 50000 characters long; keep it to 1000 (the approvers read it).' },
    });
    expect(checkDeletionForm({ boxes: ['c1'], reason: 'x'.repeat(1000) })).toMatchObject({ ok: true });
    expect(checkDeletionForm({ boxes: ['c1', 'c2 '.repeat(1001)], reason: 'r' })).toEqual({
      ok: false,
      errors: {
        [idsBlock(2)]: 'This box holds 3003 characters; a box takes at most 3000. Put the rest in another box.',
      },
    });
    expect(checkDeletionForm({ boxes: Array.from({ length: 11 }, () => 'c1'), reason: 'r' })).toEqual({
      ok: false,
      errors: { [idsBlock(1)]: 'The form has at most 10 boxes of IDs. Open it again.' },
    });
  });
});

describe('boxesOf', () => {
  it('clamps a forged box count: it only says how many boxes are read', () => {
    expect(boxesOf(JSON.stringify({ boxes: 3 }))).toBe(3);
    for (const forged of [{ boxes: 1e9 }, { boxes: -5 }, { boxes: 2.5 }, { boxes: '7' }, [], null, 'x'])
      expect(boxesOf(JSON.stringify(forged))).toBeLessThanOrEqual(MAX_ID_BOXES);
    expect(boxesOf(JSON.stringify({ boxes: 1e9 }))).toBe(MAX_ID_BOXES);
    expect(boxesOf('not json')).toBe(1);
    expect(boxesOf(undefined)).toBe(1);
  });
});

/** A text input's state as Slack sends it, or a forger: any string (long ones too), null, or nothing. */
const textState = fc.oneof(
  fc.constant(undefined),
  fc.constant({ type: 'plain_text_input', value: null }),
  fc.record({
    type: fc.constant('plain_text_input'),
    value: fc.oneof(
      fc.string({ maxLength: 50, unit: 'binary' }),
      fc
        .array(fc.oneof(fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:@+-]{0,20}$/), fc.constantFrom('x!', '-a', '')), {
          maxLength: 40,
        })
        .chain((ids) => fc.constantFrom(...[' ', ',', '\n', '; ']).map((sep) => ids.join(sep))),
      fc.integer({ min: 0, max: 4000 }).map((n) => 'c1 '.repeat(n)),
      fc.integer({ min: 900, max: 60_000 }).map((n) => 'r'.repeat(n)),
    ),
  }),
);
const stateValues = fc
  .record({
    ...Object.fromEntries(Array.from({ length: 12 }, (_, i) => [idsBlock(i + 1), textState])),
    [REASON_BLOCK]: textState,
    unrelated: textState,
  })
  .map((blocks) => {
    const values: Record<string, Record<string, unknown>> = {};
    for (const [block, state] of Object.entries(blocks)) if (state) values[block] = { [INPUT_ACTION_ID]: state };
    return values as ViewOutput['state']['values'];
  });

describe('the deletion form, property-based', () => {
  it('reads any submitted state into a clear error map or a request within every limit', () => {
    fc.assert(
      fc.property(stateValues, fc.oneof(fc.integer({ min: -3, max: 20 }), fc.constant(1e9)), (values, forgedBoxes) => {
        const read = readDeletionForm(values, boxesOf(JSON.stringify({ boxes: forgedBoxes })));
        const checked = checkDeletionForm(read);
        if (!checked.ok) {
          expect(Object.keys(checked.errors).length).toBeGreaterThan(0);
          for (const [block, error] of Object.entries(checked.errors)) {
            expect(block === REASON_BLOCK || /^customer_ids_([1-9]|10)$/.test(block)).toBe(true);
            expect(error.length).toBeGreaterThan(0);
            expect(error.length).toBeLessThanOrEqual(2000);
          }
          return;
        }
        expect(deleteCustomersRequestSchema.safeParse(checked.customerIds).success).toBe(true);
        expect(checked.customerIds.length).toBeGreaterThan(0);
        expect(checked.customerIds.length).toBeLessThanOrEqual(DELETION_CUSTOMER_LIMIT.max);
        expect(checked.reason.length).toBeGreaterThan(0);
        expect(checked.reason.length).toBeLessThanOrEqual(MAX_REASON_LENGTH);
        expect(read.boxes.length).toBeLessThanOrEqual(MAX_ID_BOXES);
        expect(read.boxes.every((box) => box.length <= 3000)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
