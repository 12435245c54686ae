import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import SQLite from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { describeDatabaseError } from '../../../src/platform/ops/lifecycle/database-error.js';
import { SqliteFileError } from '../../../src/platform/ops/lifecycle/sqlite-file-problem.js';
import { openStore, type Store } from '../../../src/platform/store/store.js';
import { describeEachEngine, type TestDatabase, useMigratedStore } from '../../kit/store-engines.js';

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

  it('applies its migrations once, and again without harm, even from several replicas at once', async () => {
    const { store, db } = await open();
    // Four migrators at the same moment, as replicas starting together are. On PostgreSQL each store is a session
    // of its own, as a replica's is, and they meet only in the server. On SQLite they are processes: in one process
    // better-sqlite3's busy wait would block the others' progress.
    const replicas = engine === 'postgres' ? await Promise.all([1, 2, 3].map(() => open(db))) : [];
    const exits = await Promise.all([
      ...[store, ...replicas.map((replica) => replica.store)].map((each) => each.migrate().then(() => 0)),
      ...(engine === 'sqlite' ? [1, 2, 3].map(() => migrateInChildProcess(db.databaseUrl)) : []),
    ]);
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

  describe('on a database the migrations brought up to date', () => {
    const migrated = useMigratedStore(create);

    it('records audit entries and lists them newest first, filtered by actor and operation', async () => {
      const { store } = migrated;
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
    });

    it('records an operation as pending before it runs and completes it after', async () => {
      const { store } = migrated;
      const started = await store.audit.start({
        actorId: 'U1',
        operation: 'link.create',
        inputs: { nftId: 'n' },
        history: { kind: 'link', how: 'form', link: { nftId: 'n' } },
      });
      expect((await store.audit.list())[0]).toMatchObject({ id: started.id, outcome: 'pending', detail: undefined });
      await store.audit.complete(started.id, 'succeeded', 'https://mint.example/claim/1');
      expect((await store.audit.list())[0]).toMatchObject({
        id: started.id,
        outcome: 'succeeded',
        detail: 'https://mint.example/claim/1',
        inputs: { nftId: 'n' },
      });
    });

    it('gives rows without a workspace to the one named, leaving the others', async () => {
      const { store } = migrated;
      await store.audit.record({
        actorId: 'U1',
        teamId: undefined,
        operation: 'link.create',
        inputs: {},
        outcome: 'succeeded',
      });
      await store.audit.record({
        actorId: 'U2',
        teamId: 'T2',
        operation: 'link.create',
        inputs: {},
        outcome: 'succeeded',
      });
      await store.homeTabs.save({ userId: 'U1', teamId: undefined, hash: 'h' });
      await store.homeTabs.save({ userId: 'U3', teamId: undefined, hash: 'old' }); // has a Home in T1 already
      await store.homeTabs.save({ userId: 'U3', teamId: 'T1', hash: 'new' });
      await store.onceKeys.claim('k1');
      expect(await store.adoptRowsWithoutWorkspace('T1')).toBe(3);
      expect(await store.adoptRowsWithoutWorkspace('T1')).toBe(0);
      const byActor = Object.fromEntries((await store.audit.list()).map((e) => [e.actorId, e.teamId]));
      expect(byActor).toEqual({ U1: 'T1', U2: 'T2' });
      expect(await store.homeTabs.inWorkspace('T1')).toEqual([
        { userId: 'U1', teamId: 'T1', hash: 'h' },
        { userId: 'U3', teamId: 'T1', hash: 'new' },
      ]);
      expect(await store.homeTabs.inWorkspace('')).toEqual([]);
    });

    it('records the latest published Home of each user, never replaced by an earlier one saved late', async () => {
      const { store } = migrated;
      const t = (s: number) => new Date(Date.UTC(2026, 10, 21, 10, 0, s));
      await store.homeTabs.save({ userId: 'U1', teamId: 'T1', hash: 'h1' }, t(1));
      await store.homeTabs.save({ userId: 'U1', teamId: 'T1', hash: 'h3' }, t(3));
      await store.homeTabs.save({ userId: 'U1', teamId: 'T1', hash: 'h2' }, t(2)); // late
      expect(await store.homeTabs.get('U1', 'T1')).toEqual({ userId: 'U1', teamId: 'T1', hash: 'h3' });
      await store.homeTabs.save({ userId: 'U1', teamId: 'T2', hash: 'other' }, t(1)); // a Grid user's other Home
      await store.homeTabs.save({ userId: 'U2', teamId: undefined, hash: undefined }, t(1));
      expect(await store.homeTabs.inWorkspace('T1')).toEqual([{ userId: 'U1', teamId: 'T1', hash: 'h3' }]);
      expect(await store.homeTabs.inWorkspace('T2')).toEqual([{ userId: 'U1', teamId: 'T2', hash: 'other' }]);
      expect(await store.homeTabs.inWorkspace('')).toEqual([{ userId: 'U2', teamId: undefined, hash: undefined }]);
    });

    it('reads the Homes of one workspace only, a page at a time by user id', async () => {
      const { store } = migrated;
      for (const user of ['U5', 'U1', 'U3', 'U2', 'U4'])
        await store.homeTabs.save({ userId: user, teamId: 'T1', hash: 'h' });
      for (const user of ['U1', 'U0', 'U9']) await store.homeTabs.save({ userId: user, teamId: 'T2', hash: 'h' });
      const pages: string[][] = [];
      for (let after = ''; ;) {
        const page = await store.homeTabs.inWorkspace('T1', after, 2);
        if (page.length === 0) break;
        expect(page.every((tab) => tab.teamId === 'T1')).toBe(true);
        pages.push(page.map((tab) => tab.userId));
        after = page.at(-1)?.userId ?? '';
      }
      expect(pages).toEqual([['U1', 'U2'], ['U3', 'U4'], ['U5']]);
      expect((await store.homeTabs.amongIn('T2', ['U1', 'U2', 'U9'])).map((tab) => tab.userId).sort()).toEqual([
        'U1',
        'U9',
      ]);
    });

    it('keeps entries in insertion order within the same millisecond', async () => {
      const { store } = migrated;
      const at = new Date();
      for (const n of [1, 2, 3, 4, 5])
        await store.audit.record({ actorId: 'U1', operation: `op.${n}`, inputs: {}, outcome: 'succeeded' }, at);
      expect((await store.audit.list()).map((e) => e.operation)).toEqual(['op.5', 'op.4', 'op.3', 'op.2', 'op.1']);
    });

    it('bounds the size of an entry however large its inputs', async () => {
      const { store } = migrated;
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
    });
  });

  it('answers ping with the reason when the database cannot be reached', async () => {
    const location =
      engine === 'sqlite'
        ? { engine: 'sqlite' as const, path: '/etc/hostname/under-a-file/x.sqlite' }
        : { engine: 'postgres' as const, url: 'postgres://postgres@127.0.0.1:1/test' };
    if (engine === 'sqlite') {
      // SQLite opens its file at once, and says why it cannot.
      expect(() => openStore(location)).toThrow(
        'DATABASE_URL points to /etc/hostname/under-a-file/x.sqlite, which is under /etc/hostname, which is a file, not a directory.',
      );
      return;
    }
    const store = openStore(location);
    await expect(store.ping(3_000)).rejects.toThrow(/ECONNREFUSED|connect/);
    await expect(store.migrate()).rejects.toThrow();
    await store.close();
  });
});

describe('an SQLite path that cannot be used', () => {
  const dir = () => {
    const path = mkdtempSync(join(tmpdir(), 'mintlink-bad-path-'));
    chmodSync(path, 0o755); // other users may look inside (see otherUser)
    return path;
  };
  const sqlite = (path: string) => ({ engine: 'sqlite' as const, path });
  const problem = (path: string) => {
    try {
      const store = openStore(sqlite(path));
      void store.close();
      return undefined;
    } catch (error) {
      expect(error).toBeInstanceOf(SqliteFileError);
      return (error as SqliteFileError).message;
    }
  };

  it('is a directory', () => {
    const path = dir();
    expect(problem(path)).toBe(`DATABASE_URL points to ${path}, which is a directory.`);
  });

  it('is under a file', () => {
    const file = join(dir(), 'a-file');
    writeFileSync(file, 'x');
    expect(problem(join(file, 'db.sqlite'))).toBe(
      `DATABASE_URL points to ${file}/db.sqlite, which is under ${file}, which is a file, not a directory.`,
    );
    expect(problem(join(file, 'deeper', 'db.sqlite'))).toContain(`which is under ${file}, which is a file`);
  });

  it('is not an SQLite database', () => {
    const path = join(dir(), 'notes.txt');
    writeFileSync(path, 'These are notes, not a database. '.repeat(20));
    expect(problem(path)).toBe(`DATABASE_URL points to ${path}, which is not an SQLite database.`);
  });

  // Root reads and writes whatever the permissions say, so as root these run in a process of user "nobody".
  describe.skipIf(!otherUser.available)(`as a user without the permissions${otherUser.note}`, () => {
    afterAll(() => otherUser.stop());
    const existing = async (mode: number) => {
      const folder = dir();
      const path = join(folder, 'db.sqlite');
      const store = openStore(sqlite(path));
      await store.migrate();
      await store.close();
      chmodSync(path, mode);
      return { folder, path };
    };

    it('cannot be written (read-only file)', async () => {
      const { path } = await existing(0o444);
      expect(await otherUser.problem(path)).toBe(
        `DATABASE_URL points to ${path}, which cannot be written (read-only: permission denied).`,
      );
    });

    it('cannot be written (read-only directory: no room for the journal)', async () => {
      const { folder, path } = await existing(0o666);
      chmodSync(folder, 0o555);
      expect(await otherUser.problem(path)).toBe(
        `DATABASE_URL points to ${path}, which cannot be written (read-only: permission denied to create files in ${folder}, where SQLite keeps its journal).`,
      );
    });

    it('cannot be read (permission denied)', async () => {
      const { path } = await existing(0o600);
      expect(await otherUser.problem(path)).toBe(
        `DATABASE_URL points to ${path}, which cannot be read (permission denied).`,
      );
    });

    it('cannot be created (permission denied in its directory)', async () => {
      const folder = dir();
      chmodSync(folder, 0o555);
      const path = join(folder, 'sub', 'db.sqlite');
      expect(await otherUser.problem(path)).toBe(
        `DATABASE_URL points to ${path}, which cannot be created (permission denied in ${folder}).`,
      );
    });

    it('cannot be reached (a directory on the way is closed)', async () => {
      const folder = dir();
      const closed = join(folder, 'closed');
      mkdirSync(closed, { mode: 0o700 });
      chmodSync(closed, 0o700);
      const path = join(closed, 'db.sqlite');
      expect(await otherUser.problem(path)).toBe(
        `DATABASE_URL points to ${path}, which cannot be reached (permission denied on ${closed}).`,
      );
    });
  });

  it('locked by another process for longer than the busy timeout: opens, says so, and works once released', async () => {
    const path = join(dir(), 'db.sqlite');
    const first = openStore(sqlite(path));
    await first.migrate();
    await first.close();
    const locker = new SQLite(path);
    locker.exec('begin exclusive');
    let store: Store | undefined;
    try {
      // Waits the busy timeout (5 s in the app, shortened here: the same path), then gives a store that opens the file later.
      store = openStore(sqlite(path), undefined, undefined, { busyTimeoutMs: 300 });
      const failure = await store.ping().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(SqliteFileError);
      expect(describeDatabaseError(failure, sqlite(path))).toBe(`${path} is locked by another process (SQLITE_BUSY)`);
      locker.exec('rollback');
      await store.migrate();
      await expect(store.ping()).resolves.toBeUndefined();
      expect(await store.audit.list()).toEqual([]);
    } finally {
      if (locker.inTransaction) locker.exec('rollback');
      locker.close();
      await store?.close();
    }
  }, 30_000);
});

/**
 * Opens a store in a process of another user, for the permission cases: as root, user "nobody" (uid 65534);
 * as anyone else, this process (file permissions already apply to it). As root, one process of user nobody
 * answers every case, path after path (a line each way): starting one per case cost a second or more each.
 */
const otherUser = (() => {
  const storeModule = fileURLToPath(new URL('../../../dist/platform/store/store.js', import.meta.url));
  const script = `const { openStore } = await import(${JSON.stringify(pathToFileURL(storeModule).href)});
    const { createInterface } = await import('node:readline');
    for await (const path of createInterface({ input: process.stdin })) {
      try { const store = openStore({ engine: 'sqlite', path }); await store.close(); console.log(JSON.stringify({})); }
      catch (error) { console.log(JSON.stringify({ message: error.message })); }
    }`;
  const asRoot = process.getuid?.() === 0;
  const nobody = { uid: 65534, gid: 65534 };
  const available = !asRoot || spawnSync(process.execPath, ['-e', ''], nobody).status === 0;
  let server: { child: ChildProcess; answers: AsyncIterator<string> } | undefined;
  const started = () => {
    if (server) return server;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      ...nobody,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    if (!child.stdout) throw new Error('the process of user nobody has no output');
    child.stdin?.on('error', () => undefined); // a process that ended: its next answer says so
    server = { child, answers: createInterface({ input: child.stdout })[Symbol.asyncIterator]() };
    return server;
  };
  return {
    available,
    note: !asRoot
      ? ''
      : available
        ? ' (user nobody)'
        : ' (skipped: running as root, and a process of user nobody cannot be started here)',
    async problem(path: string): Promise<string | undefined> {
      if (!asRoot) {
        try {
          await openStore({ engine: 'sqlite', path }).close();
          return undefined;
        } catch (error) {
          return (error as Error).message;
        }
      }
      const { child, answers } = started();
      child.stdin?.write(`${path}\n`);
      const answer = await answers.next();
      if (answer.done) throw new Error(`the process of user nobody ended (exit code ${child.exitCode})`);
      return (JSON.parse(answer.value) as { message?: string }).message;
    },
    /** Ends the process of user nobody, if one was started. */
    async stop(): Promise<void> {
      const child = server?.child;
      server = undefined;
      if (!child || child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.stdin?.end();
      await exited;
    },
  };
})();

/** Runs the built store's migrations in a separate Node process; resolves with its exit code. */
function migrateInChildProcess(databaseUrl: string): Promise<number | null> {
  const storeModule = new URL('../../../dist/platform/store/store.js', import.meta.url).href;
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
