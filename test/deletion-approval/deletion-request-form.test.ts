import type { InputBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import {
  MAX_ID_BOXES,
  REASON_BLOCK,
  checkDeletionForm,
  deletionRequestView,
  idsBlock,
} from '../../src/deletion-approval/deletion-request-form.js';
import { viewProblems } from '../kit/block-kit-limits.js';

const boxesOf = (view: ReturnType<typeof deletionRequestView>) =>
  view.blocks.filter((b): b is InputBlock => b.type === 'input' && String(b.block_id).startsWith('customer_ids_'));
const initialOf = (box: InputBlock) => ('initial_value' in box.element ? String(box.element.initial_value ?? '') : '');

describe('deletionRequestView', () => {
  it('prefills the IDs from the command, spread over boxes of at most 3000 characters', () => {
    const ids = Array.from({ length: 1000 }, (_, i) => `customer-${String(i).padStart(6, '0')}`);
    const view = deletionRequestView({ prefill: ids });
    const boxes = boxesOf(view);
    expect(boxes.length).toBeGreaterThan(1);
    expect(boxes.every((b) => initialOf(b).length <= 3000)).toBe(true);
    expect(boxes.flatMap((b) => initialOf(b).split('\n'))).toEqual(ids);
    expect(viewProblems(view)).toEqual([]);
    expect(JSON.parse(view.private_metadata ?? '{}')).toEqual({ boxes: boxes.length });
  });

  it('says how many prefilled IDs did not fit, rather than dropping them silently', () => {
    const ids = Array.from({ length: 400 }, (_, i) => `${'x'.repeat(100)}${i}`);
    const view = deletionRequestView({ prefill: ids });
    expect(boxesOf(view)).toHaveLength(MAX_ID_BOXES);
    expect(JSON.stringify(view.blocks[0])).toMatch(/Only the first \d+ of the 400 IDs given fit in this form/);
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
      errors: { [idsBlock(1)]: expect.stringContaining('That is 1001 customers') },
    });
    const exactly = Array.from({ length: 1000 }, (_, i) => `c${i}`).join(' ');
    expect(checkDeletionForm({ boxes: [exactly], reason: 'r' })).toMatchObject({ ok: true });
  });
});
