import { afterEach, expect, it } from 'vitest';
import { createSecretScrubber } from '../../../src/platform/ops/telemetry/secret-scrubber.js';
import { openStore, type Store } from '../../../src/platform/store/store.js';
import { runSql } from '../../kit/raw-sql.js';
import { describeEachEngine } from '../../kit/store-engines.js';

describeEachEngine('once keys and the secret scrubber in the store', (_engine, create) => {
  const opened: Store[] = [];
  const open = async (location?: Parameters<typeof openStore>[0], scrub?: (t: string) => string) => {
    const store = openStore(location ?? (await create()).location, undefined, scrub);
    opened.push(store);
    await store.migrate();
    return store;
  };
  afterEach(async () => {
    for (const store of opened.splice(0).reverse()) await store.close().catch(() => undefined);
  });

  it('lets exactly one of many concurrent claims of a key win, across two connections', async () => {
    const db = await create();
    const [a, b] = [await open(db.location), await open(db.location)];
    const claims = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).onceKeys.claim('key-1')));
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await a.onceKeys.claim('key-2')).toBe(true);
  });

  it('forgets keys older than a day, so they can be claimed again', async () => {
    const db = await create();
    const store = await open(db.location);
    expect(await store.onceKeys.claim('old')).toBe(true);
    const longAgo = new Date(Date.now() - 25 * 60 * 60 * 1000).toISOString();
    await runSql(db.databaseUrl, 'update once_keys set claimed_at = ? where key = ?', [longAgo, 'old']);
    expect(await store.onceKeys.claim('old')).toBe(false); // kept until the background clean-up runs
    expect(await store.onceKeys.prune()).toBe(1); // 'old' only
    expect(await store.onceKeys.claim('old')).toBe(true);
    expect(await store.onceKeys.claim('new')).toBe(true);
    expect(await store.onceKeys.prune(-60_000, 1)).toBe(2); // everything written before a minute from now, one at a time
  });

  it('scrubs every secret from every value written, whichever repository writes it', async () => {
    const secret = 'db-secret-"quoted"-9f8e7d';
    const store = await open(undefined, createSecretScrubber([secret]));
    await store.audit.record({
      actorId: 'U1',
      operation: 'x',
      inputs: { note: `a ${secret} b` },
      outcome: 'ok',
      detail: secret,
    });
    const created = await store.deletionRequests.create({
      teamId: undefined,
      requesterId: 'U1',
      customerIds: ['c1'],
      duplicatesRemoved: 0,
      reason: `pasted ${secret}`,
      ttlMs: 60_000,
      approvalsNeeded: 1,
      approvers: { users: [], userGroups: [] },
    });
    const stored = JSON.stringify([await store.audit.list(), await store.deletionRequests.get(created.id)]);
    expect(stored).not.toContain('db-secret');
    expect(stored).toContain('[redacted]');
  });
});
