import { spawn } from 'node:child_process';
import { afterEach, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/store.js';
import { describeEachEngine, type TestDatabase } from '../kit/store-engines.js';

describeEachEngine('store', (engine, create) => {
  const opened: Array<{ store: Store; db: TestDatabase }> = [];
  const open = async (db?: TestDatabase) => {
    const database = db ?? (await create());
    const store = openStore(database.location);
    opened.push({ store, db: database });
    return { store, db: database };
  };

  afterEach(async () => {
    for (const { store } of opened.splice(0).reverse()) await store.close().catch(() => undefined);
  });

  it('applies its migrations once, and again without harm, even from several processes at once', async () => {
    const { store, db } = await open();
    // Separate processes, as replicas are: in one process SQLite's busy wait would block the others' progress.
    const exits = await Promise.all([1, 2, 3, 4].map(() => migrateInChildProcess(db.databaseUrl)));
    expect(exits).toEqual([0, 0, 0, 0]);
    await store.migrate();
    await expect(store.ping()).resolves.toBeUndefined();
    expect(await store.audit.list()).toEqual([]);
    expect(store.engine).toBe(engine);
    await db.drop();
  });

  it.runIf(engine === 'postgres')(
    'migrates its own schema even when another schema of the database has migration tables',
    async () => {
      const { store: other, db: otherDb } = await open();
      await other.migrate(); // another schema now holds kysely_migration and kysely_migration_lock
      const { store, db } = await open();
      await expect(store.migrate()).resolves.toBeUndefined();
      expect(await store.audit.list()).toEqual([]);
      await db.drop();
      await otherDb.drop();
    },
  );

  it('records audit entries and lists them newest first, filtered by actor and operation', async () => {
    const { store, db } = await open();
    await store.migrate();
    const t0 = new Date('2026-11-01T10:00:00.000Z');
    await store.audit.record(
      {
        actorId: 'U1',
        teamId: 'T1',
        operation: 'link.create',
        inputs: { nftId: 'n1' },
        outcome: 'succeeded',
        detail: 'https://x/1',
      },
      t0,
    );
    await store.audit.record(
      { actorId: 'U2', operation: 'wallet.create', inputs: {}, outcome: 'failed', detail: 'timeout' },
      new Date(t0.getTime() + 1000),
    );
    await store.audit.record(
      { actorId: 'U1', operation: 'wallet.create', inputs: { userId: 'c1' }, outcome: 'succeeded' },
      new Date(t0.getTime() + 2000),
    );

    const all = await store.audit.list();
    expect(all.map((e) => [e.actorId, e.operation, e.outcome])).toEqual([
      ['U1', 'wallet.create', 'succeeded'],
      ['U2', 'wallet.create', 'failed'],
      ['U1', 'link.create', 'succeeded'],
    ]);
    expect(all[2]).toMatchObject({ at: t0, teamId: 'T1', inputs: { nftId: 'n1' }, detail: 'https://x/1' });
    expect(all[1]).toMatchObject({ teamId: undefined, detail: 'timeout' });
    expect((await store.audit.list({ actorId: 'U1' })).map((e) => e.operation)).toEqual([
      'wallet.create',
      'link.create',
    ]);
    expect((await store.audit.list({ operation: 'wallet.create', limit: 1 })).map((e) => e.actorId)).toEqual(['U1']);
    await db.drop();
  });

  it('records an operation as pending before it runs and completes it after', async () => {
    const { store, db } = await open();
    await store.migrate();
    const started = await store.audit.start({ actorId: 'U1', operation: 'link.create', inputs: { nftId: 'n' } });
    expect((await store.audit.list())[0]).toMatchObject({ id: started.id, outcome: 'pending', detail: undefined });
    await store.audit.complete(started.id, 'succeeded', 'https://mint.example/claim/1');
    expect((await store.audit.list())[0]).toMatchObject({
      id: started.id,
      outcome: 'succeeded',
      detail: 'https://mint.example/claim/1',
      inputs: { nftId: 'n' },
    });
    await db.drop();
  });

  it('records the latest published Home of each user, never replaced by an earlier one saved late', async () => {
    const { store, db } = await open();
    await store.migrate();
    const t = (s: number) => new Date(Date.UTC(2026, 10, 21, 10, 0, s));
    await store.homeTabs.save({ userId: 'U1', teamId: 'T1', hash: 'h1' }, t(1));
    await store.homeTabs.save({ userId: 'U1', teamId: 'T1', hash: 'h3' }, t(3));
    await store.homeTabs.save({ userId: 'U1', teamId: 'T1', hash: 'h2' }, t(2)); // late
    expect(await store.homeTabs.get('U1')).toEqual({ userId: 'U1', teamId: 'T1', hash: 'h3' });
    await store.homeTabs.save({ userId: 'U2', teamId: undefined, hash: undefined }, t(1));
    expect((await store.homeTabs.userIds()).sort()).toEqual(['U1', 'U2']);
    await db.drop();
  });

  it('keeps entries in insertion order within the same millisecond', async () => {
    const { store, db } = await open();
    await store.migrate();
    const at = new Date();
    for (const n of [1, 2, 3, 4, 5])
      await store.audit.record({ actorId: 'U1', operation: `op.${n}`, inputs: {}, outcome: 'succeeded' }, at);
    expect((await store.audit.list()).map((e) => e.operation)).toEqual(['op.5', 'op.4', 'op.3', 'op.2', 'op.1']);
    await db.drop();
  });

  it('bounds the size of an entry however large its inputs', async () => {
    const { store, db } = await open();
    await store.migrate();
    const ids = Array.from({ length: 5000 }, (_, i) => `customer-${i}`);
    await store.audit.record({
      actorId: 'U1',
      operation: 'customers.delete',
      inputs: { customerIds: ids, reason: 'r'.repeat(10_000) },
      outcome: 'requested',
      detail: 'd'.repeat(5000),
    });
    const [entry] = await store.audit.list();
    expect(JSON.stringify(entry?.inputs).length).toBeLessThanOrEqual(4000);
    expect(entry?.inputs.customerIds).toEqual({ count: 5000, first: ids.slice(0, 20) });
    expect(entry?.detail?.length).toBe(1000);
    await db.drop();
  });

  it('answers ping with the reason when the database cannot be reached', async () => {
    const location =
      engine === 'sqlite'
        ? { engine: 'sqlite' as const, path: '/etc/hostname/under-a-file/x.sqlite' }
        : { engine: 'postgres' as const, url: 'postgres://postgres@127.0.0.1:1/test' };
    if (engine === 'sqlite') {
      expect(() => openStore(location)).toThrow(); // SQLite opens its file at once
      return;
    }
    const store = openStore(location);
    await expect(store.ping(3_000)).rejects.toThrow(/ECONNREFUSED|connect/);
    await expect(store.migrate()).rejects.toThrow();
    await store.close();
  });
});

/** Runs the built store's migrations in a separate Node process; resolves with its exit code. */
function migrateInChildProcess(databaseUrl: string): Promise<number | null> {
  const storeModule = new URL('../../dist/store/store.js', import.meta.url).href;
  const location = databaseUrl.startsWith('file:')
    ? { engine: 'sqlite', path: databaseUrl.slice(5) }
    : { engine: 'postgres', url: databaseUrl };
  const script = `const { openStore } = await import(${JSON.stringify(storeModule)});
    const store = openStore(${JSON.stringify(location)});
    await store.migrate();
    await store.close();`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'inherit' });
  return new Promise((resolve) => child.on('exit', resolve));
}
