import { describe, expect, it } from 'vitest';
import { WorkBudget } from '../../../../src/platform/slack/admission/work-budget.js';

/** A promise settled from the test, when the test says so. */
function deferred<T>() {
  let resolve: (value: T) => void = () => undefined;
  let reject: (error: Error) => void = () => undefined;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('WorkBudget', () => {
  it('gives places up to its limit, then refuses until one comes back', () => {
    const budget = new WorkBudget(2);
    expect([budget.tryAcquire(), budget.tryAcquire(), budget.tryAcquire()]).toEqual([true, true, false]);
    expect(budget.isFull).toBe(true);
    budget.release();
    expect(budget.tryAcquire()).toBe(true);
    expect(budget.count).toBe(2);
  });

  it('counts tracked background work, past the limit if need be, failed work included', async () => {
    const budget = new WorkBudget(1);
    expect(budget.tryAcquire()).toBe(true);
    const ok = deferred<string>();
    const failing = deferred<string>();
    const tracked = [budget.track(ok.promise), budget.track(failing.promise).catch(() => 'failed')];
    expect(budget.count).toBe(3);
    budget.release();
    ok.resolve('done');
    failing.reject(new Error('x'));
    expect(await Promise.all(tracked)).toEqual(['done', 'failed']);
    expect(budget.count).toBe(0);
  });

  it('is idle at once when nothing runs, waits for the last piece of work, and gives up after the grace period', async () => {
    const budget = new WorkBudget(5);
    await expect(budget.idle(10)).resolves.toBe(true);
    const work = deferred<void>();
    void budget.track(work.promise);
    await expect(budget.idle(20)).resolves.toBe(false);
    const idle = budget.idle(5_000);
    work.resolve();
    await expect(idle).resolves.toBe(true);
  });
});
