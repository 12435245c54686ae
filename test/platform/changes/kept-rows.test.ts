import { describe, expect, it } from 'vitest';
import { InProcessChangeFeed } from '../../../src/platform/changes/change-feed.js';
import { KeptRows } from '../../../src/platform/changes/kept-rows.js';
import { fakeExecutor } from './fake-executor.js';

/** A table in memory that counts how it is read. */
function table(rows: Record<string, { value: string; version: string }>) {
  const reads = { one: 0, versions: 0 };
  const source = {
    read: (id: string) => {
      reads.one += 1;
      return Promise.resolve(rows[id]);
    },
    versions: (ids: readonly string[]) => {
      reads.versions += 1;
      return Promise.resolve(new Map(ids.flatMap((id) => (rows[id] ? [[id, rows[id].version] as const] : []))));
    },
  };
  return { rows, reads, source };
}

describe('rows kept in memory and checked against the database', () => {
  it('reads a row once, however many ask at once, then answers from memory', async () => {
    const t = table({ a: { value: 'A1', version: '1' } });
    const kept = new KeptRows(t.source, { keepMissing: false });
    expect(await Promise.all([kept.get('a'), kept.get('a'), kept.get('a')])).toEqual(['A1', 'A1', 'A1']);
    expect(await kept.get('a')).toBe('A1');
    expect(t.reads.one).toBe(1);
  });

  it('on each check: forgets deleted and changed rows (read again when next asked), leaves the rest, in one query', async () => {
    const t = table({
      a: { value: 'A1', version: '1' },
      b: { value: 'B1', version: '1' },
      c: { value: 'C1', version: '1' },
    });
    const kept = new KeptRows(t.source, { keepMissing: false });
    for (const id of ['a', 'b', 'c']) await kept.get(id);
    delete t.rows.a;
    t.rows.b = { value: 'B2', version: '2' };
    await kept.revalidate();
    expect(t.reads).toEqual({ one: 3, versions: 1 }); // the three first reads, and the check
    expect([await kept.get('b'), await kept.get('c')]).toEqual(['B2', 'C1']); // b read again, c kept
    expect(await kept.get('a')).toBeUndefined(); // read again: gone
    expect(t.reads.one).toBe(5);
  });

  it('keeps "there is none" when asked to, until the row appears', async () => {
    const t = table({});
    const kept = new KeptRows(t.source, { keepMissing: true });
    expect(await kept.get('x')).toBeUndefined();
    expect(await kept.get('x')).toBeUndefined();
    expect(t.reads.one).toBe(1);
    t.rows.x = { value: 'X1', version: '1' };
    await kept.revalidate();
    expect(await kept.get('x')).toBe('X1');
  });

  it('forgets rows nobody used for a while, and what it was told to', async () => {
    const t = table({ a: { value: 'A1', version: '1' }, b: { value: 'B1', version: '1' } });
    const kept = new KeptRows(t.source, { keepMissing: false, unusedDropMs: 1 });
    await kept.get('a');
    await new Promise((resolve) => setTimeout(resolve, 5));
    await kept.revalidate();
    expect(t.reads.versions).toBe(0); // nothing left to check
    const again = new KeptRows(t.source, { keepMissing: false });
    await again.get('b');
    again.forget('b');
    await again.get('b');
    expect(t.reads.one).toBe(3);
  });

  it('does not keep what a read under way found when the row changed here meanwhile', async () => {
    const t = table({ a: { value: 'A1', version: '1' } });
    let release: () => void = () => undefined;
    const slow = {
      ...t.source,
      read: async (id: string) => {
        const row = t.rows[id];
        await new Promise<void>((resolve) => (release = resolve));
        return row;
      },
    };
    const kept = new KeptRows(slow, { keepMissing: false });
    const before = kept.get('a'); // reads A1, slowly
    delete t.rows.a; // removed here (a key removed, an installation deleted)...
    kept.forget('a'); // ...and forgotten
    release();
    expect(await before).toBe('A1'); // the request that asked before the change sees what it read
    const after = kept.get('a'); // a new read, not the old one
    release();
    expect(await after).toBeUndefined();
  });

  it('forgets each row the change feed says changed, and checks them all when the feed catches up', async () => {
    const t = table({ a: { value: 'A1', version: '1' }, b: { value: 'B1', version: '1' } });
    const feed = new InProcessChangeFeed();
    const kept = new KeptRows(t.source, { keepMissing: false }).follow(feed, 'installation');
    await kept.get('a');
    await kept.get('b');
    t.rows.a = { value: 'A2', version: '2' };
    t.rows.b = { value: 'B2', version: '2' };
    const told = new Promise<void>((resolve) => feed.on('installation', () => resolve()));
    await feed.announce(fakeExecutor, { topic: 'installation', id: 'a' });
    await told;
    expect(await kept.get('a')).toBe('A2'); // told: read again
    expect(await kept.get('b')).toBe('B1'); // not told: still kept
    await feed.announce(fakeExecutor, { topic: 'mint-account', id: 'b' }); // another topic: nothing here
    await feed.catchUp();
    expect(await kept.get('b')).toBe('B2'); // the catch-up compared the versions
  });
});
