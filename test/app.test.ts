import { describe, expect, it } from 'vitest';
import { capabilityStore } from '../src/app.js';
import { sqliteDatabase, useMigratedStore } from './kit/store-engines.js';
import { fakeExecutor } from './platform/changes/fake-executor.js';

describe('the store a capability is given', () => {
  const db = useMigratedStore(() => Promise.resolve(sqliteDatabase()));

  it('holds only what a capability may reach, while the app runs too: no tenancy rows, no migrating or closing', async () => {
    const { store } = db;
    const given = capabilityStore(store);
    const wiringOnly = ['installationRows', 'mintAccountRows', 'workspaceSettingsRows', 'migrate', 'close'];
    for (const kept of [...wiringOnly, 'adoptRowsWithoutWorkspace']) expect(kept in given, kept).toBe(false);
    expect(Object.isFrozen(given)).toBe(true);
    expect(given.audit).toBe(store.audit);

    // A transaction is narrowed alike, and still writes in the one transaction.
    const seen = await given.transaction(async (tx) => {
      await tx.audit.record({ actorId: 'U1', teamId: 'T1', operation: 'test.op', inputs: {}, outcome: 'ok' });
      return { frozen: Object.isFrozen(tx), keys: Object.keys(tx).sort() };
    });
    expect(seen).toEqual({
      frozen: true,
      keys: ['audit', 'bulkJobs', 'deletionApprovals', 'deletionRequests', 'stepCompletions'],
    });
    expect(await store.audit.list({ actorId: 'U1', teamId: 'T1', limit: 5 })).toHaveLength(1);
  });

  it('hears changes but neither announces nor closes them', async () => {
    const given = capabilityStore(db.store);
    expect(Object.keys(given.changes).sort()).toEqual(['engine', 'on', 'onCatchUp']);
    expect(Object.isFrozen(given.changes)).toBe(true);
    // What a capability subscribes is told of the store's own changes.
    const told = new Promise<string>((resolve) => given.changes.on('bulk-job', resolve));
    await db.store.changes.announce(fakeExecutor, { topic: 'bulk-job', id: 'job-1' });
    expect(await told).toBe('job-1');
  });
});
