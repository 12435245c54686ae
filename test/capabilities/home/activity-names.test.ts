import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OPERATIONS, activityLine } from '../../../src/capabilities/home/home-view.js';

const SRC = new URL('../../../src', import.meta.url).pathname;

/** The audit operations the app's code records (`operation: 'x.y'`), read from its sources. */
function recordedOperations(): string[] {
  const found = new Set<string>();
  for (const file of readdirSync(SRC, { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('.ts') || file.startsWith('sandbox')) continue;
    const text = readFileSync(join(SRC, file), 'utf8');
    for (const match of text.matchAll(/operation: '([a-z_]+\.[a-z_.]+)'/g)) found.add(match[1] ?? '');
  }
  return [...found].sort();
}

describe("Home's activity", () => {
  const operations = [
    ...recordedOperations(),
    // Recorded under names the code builds: `bulk.${control}`, a replaced or connected Mint account, the asking.
    'bulk.pause',
    'bulk.resume',
    'bulk.cancel',
    'mint_account.connect',
    'mint_account.replace',
    'customers.delete.request',
  ];

  it('finds the operations in the code', () => {
    expect(operations).toContain('audit.export');
    expect(operations).toContain('link.create');
  });

  it.each(operations)('names %s as a person reads it, not by its id', (operation) => {
    expect(OPERATIONS[operation]).toBeDefined();
    const line = activityLine({
      id: '1',
      at: new Date('2026-01-02T03:04:05Z'),
      actorId: 'U1',
      teamId: 'T1',
      operation,
      origin: undefined,
      inputs: {},
      outcome: 'succeeded',
      detail: undefined,
    });
    expect(line).not.toContain(operation);
  });

  it('says "Exported the audit log" for an export', () => {
    expect(OPERATIONS['audit.export']).toBe('Exported the audit log');
  });
});
