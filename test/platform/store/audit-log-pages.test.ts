import { expect, it } from 'vitest';
import type { Store } from '../../../src/platform/store/store.js';
import type { AuditLogTable } from '../../../src/platform/store/tables.js';
import { seedAuditLog } from '../../kit/audit-seed.js';
import { describeEachEngine, useMigratedStore } from '../../kit/store-engines.js';

const DAY = 86_400_000;
const NOW = new Date('2026-11-23T12:00:00.000Z');

const row = (i: number, overrides: Partial<AuditLogTable> = {}): AuditLogTable => ({
  id: `entry-${String(i).padStart(6, '0')}`,
  at: new Date(NOW.getTime() - 10 * DAY).toISOString(),
  actor_id: i % 3 === 0 ? 'U_ANA' : 'U_BOB',
  team_id: 'T1',
  operation: ['link.create', 'customers.delete.request', 'customers.delete.approve', 'customers.deleted'][i % 4]!,
  inputs: JSON.stringify({ n: i }),
  outcome: 'succeeded',
  detail: null,
  ...overrides,
});

describeEachEngine('audit log pages', (_engine, create) => {
  const used = useMigratedStore(create);

  const read = async (period: Parameters<Store['auditLogPages']['pages']>[0], pageSize: number) => {
    const pages: string[][] = [];
    for await (const page of used.store.auditLogPages.pages(period, pageSize)) pages.push(page.map((e) => e.id));
    return pages;
  };
  const period = { teamId: 'T1', since: new Date(NOW.getTime() - 30 * DAY), until: NOW };

  it('reads every entry once, oldest first, page by page, also when many share one timestamp', async () => {
    // 1,050 entries: most in the same millisecond (the page boundary falls inside it), a few before and after.
    await seedAuditLog(used.db.databaseUrl, 1_050, (i) =>
      row(i, {
        at: new Date(NOW.getTime() - (i < 20 ? 20 : i >= 1_030 ? 5 : 10) * DAY).toISOString(),
      }),
    );
    const pages = await read(period, 100);
    expect(pages.map((p) => p.length)).toEqual([...Array(10).fill(100), 50]);
    const ids = pages.flat();
    expect(new Set(ids).size).toBe(1_050);
    expect(ids.slice(0, 20)).toEqual(Array.from({ length: 20 }, (_, i) => row(i).id));
    expect(ids.slice(-20)).toEqual(Array.from({ length: 20 }, (_, i) => row(1_030 + i).id));
  });

  it('keeps to the period, the operation (and its steps) and the actor', async () => {
    await seedAuditLog(used.db.databaseUrl, 40, (i) =>
      row(i, { at: new Date(NOW.getTime() - (i < 8 ? 40 : i >= 36 ? -1 : 10) * DAY).toISOString() }),
    );
    const all = (await read(period, 1_000)).flat();
    expect(all).toHaveLength(28);
    const deletions = (await read({ ...period, operation: 'customers.delete' }, 1_000)).flat();
    expect(deletions).toHaveLength(14); // request and approve, not customers.deleted
    const approvals = (await read({ ...period, operation: 'customers.delete.approve' }, 1_000)).flat();
    expect(approvals).toHaveLength(7);
    expect((await read({ ...period, operation: 'link_create' }, 1_000)).flat()).toEqual([]); // _ is no wildcard
    expect((await read({ ...period, operation: 'customers' }, 1_000)).flat()).toHaveLength(21); // customers.*
    const ana = (await read({ ...period, actorId: 'U_ANA' }, 1_000)).flat();
    expect(ana.every((id) => Number(id.slice(6)) % 3 === 0)).toBe(true);
    expect(ana).toHaveLength(all.filter((id) => Number(id.slice(6)) % 3 === 0).length);
  });

  it('reads one workspace’s entries only', async () => {
    await seedAuditLog(used.db.databaseUrl, 30, (i) => row(i, { team_id: i % 2 === 0 ? 'T1' : 'T2' }));
    const mine = (await read(period, 7)).flat();
    expect(mine).toEqual(Array.from({ length: 15 }, (_, i) => row(i * 2).id));
    expect((await read({ ...period, teamId: 'T9' }, 7)).flat()).toEqual([]);
  });

  it('prunes entries older than a date in batches, leaving the rest', async () => {
    await seedAuditLog(used.db.databaseUrl, 250, (i) =>
      row(i, { at: new Date(NOW.getTime() - (i < 230 ? 60 : 10) * DAY).toISOString() }),
    );
    const before = new Date(NOW.getTime() - 30 * DAY);
    expect(await used.store.auditLogPages.pruneBatch(before, 100)).toBe(100);
    expect(await used.store.auditLogPages.pruneBatch(before, 100)).toBe(100);
    expect(await used.store.auditLogPages.pruneBatch(before, 100)).toBe(30);
    expect(await used.store.auditLogPages.pruneBatch(before, 100)).toBe(0);
    const left = (await read({ teamId: 'T1', since: new Date(0), until: NOW }, 1_000)).flat();
    expect(left).toEqual(Array.from({ length: 20 }, (_, i) => row(230 + i).id));
  });
});
