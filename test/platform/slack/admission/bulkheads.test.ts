import { BulkheadRejectedError, bulkhead } from 'cockatiel';
import { describe, expect, it } from 'vitest';

/** A promise settled from the test, when the test says so. */
function deferred<T = void>() {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((res) => (resolve = res));
  return { promise, resolve };
}

/** Until every promise callback queued so far has run (a macrotask later). */
const settled = () => new Promise((resolve) => setImmediate(resolve));

/*
 * cockatiel's bulkhead as the app uses it: with a queue for the audit exports (a few at once, the others wait
 * their turn), without one for the bulk check slots and the busy notices (all taken: the app answers "busy").
 * And what it cannot do, which is why the work budget is a class of its own (see work-budget.ts).
 */
describe('bulkheads (cockatiel)', () => {
  it('with a queue: runs at most `limit` pieces of work at once; the others wait their turn, first come first served', async () => {
    const exports = bulkhead(2, Infinity);
    const gates = [deferred(), deferred(), deferred(), deferred()];
    const started: number[] = [];
    const runs = gates.map((gate, i) =>
      exports.execute(async () => {
        started.push(i);
        await gate.promise;
        return i;
      }),
    );
    await settled();
    expect(started).toEqual([0, 1]);
    expect(exports.executionSlots).toBe(0);
    gates[1]?.resolve();
    await runs[1];
    await settled();
    expect(started).toEqual([0, 1, 2]);
    gates[0]?.resolve();
    gates[2]?.resolve();
    gates[3]?.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
    expect(exports.executionSlots).toBe(2);
  });

  it('gives a slot back when the work fails', async () => {
    const exports = bulkhead(1, Infinity);
    await expect(exports.execute(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(exports.executionSlots).toBe(1);
    expect(await exports.execute(() => Promise.resolve('next'))).toBe('next');
  });

  it('without a queue: no free slot is seen before the work is offered, and a slot comes back once the work ends', async () => {
    const checks = bulkhead(1);
    const gate = deferred();
    const first = checks.execute(() => gate.promise);
    // What the bulk check and the busy notices ask first: the answer is "busy", and nothing waits.
    expect(checks.executionSlots).toBe(0);
    await expect(checks.execute(() => Promise.resolve())).rejects.toBeInstanceOf(BulkheadRejectedError);
    gate.resolve();
    await first;
    expect(checks.executionSlots).toBe(1);
  });

  it('cannot count work past its limit, as the work budget’s track() must (a Home refresh a finished request asked for)', async () => {
    const budget = bulkhead(1);
    const gate = deferred();
    const request = budget.execute(() => gate.promise);
    await expect(budget.execute(() => Promise.resolve('refresh'))).rejects.toBeInstanceOf(BulkheadRejectedError);
    gate.resolve();
    await request;
  });

  it('hands a freed slot to the waiting work a microtask late: work offered in between takes it first', async () => {
    // Why the app never mixes, on one bulkhead, work that waits its turn with work that takes a slot only if one
    // is free: the second could jump the first.
    const queued = bulkhead(1, Infinity);
    const gate = deferred();
    const order: string[] = [];
    const lateComer = () => {
      order.push('late comer');
      return Promise.resolve();
    };
    /** Looks at every microtask whether the slot is free yet while the waiting work has not started. */
    const lookEachMicrotask = (hops: number) => {
      if (queued.executionSlots > 0 && !order.includes('waiting')) void queued.execute(lateComer);
      else if (hops > 0) void Promise.resolve().then(() => lookEachMicrotask(hops - 1));
    };
    const holder = queued.execute(async () => {
      await gate.promise;
      lookEachMicrotask(20);
    });
    const waiting = queued.execute(() => {
      order.push('waiting');
      return Promise.resolve();
    });
    gate.resolve();
    await holder;
    await waiting;
    await settled();
    expect(order).toEqual(['late comer', 'waiting']);
  });
});
