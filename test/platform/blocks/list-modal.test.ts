import { describe, expect, it } from 'vitest';
import { listModal } from '../../../src/platform/blocks/list-modal.js';
import { viewProblems } from '../../kit/block-kit-limits.js';

describe('listModal', () => {
  it('packs lines into sections within the view limits and counts what does not fit', () => {
    const lines = Array.from({ length: 2000 }, (_, i) => `line ${i} ${'x'.repeat(200)}`);
    const view = listModal('Everything', lines, 'footer');
    expect(viewProblems(view)).toEqual([]);
    expect(view.blocks.length).toBeLessThanOrEqual(100);
    const text = JSON.stringify(view);
    const shown = (text.match(/line \d+ /g) ?? []).length;
    expect(shown).toBeGreaterThan(1000);
    expect(text).toContain(`…and ${2000 - shown} more not shown.`);
    expect(text).toContain('footer');
  });

  it('says when there is nothing, and keeps a single over-long line within a section', () => {
    expect(JSON.stringify(listModal('Empty', []))).toContain('_Nothing here._');
    expect(viewProblems(listModal('Long', ['y'.repeat(10_000)]))).toEqual([]);
  });
});
