import { describe, expect, it } from 'vitest';
import { Slots } from '../../../../src/platform/slack/admission/slots.js';

/** A promise settled from the test, when the test says so. */
function deferred<T = void>() {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((res) => (resolve = res));
  return { promise, resolve };
}

describe('Slots', () => {
  it('runs at most `limit` pieces of work at once; the others wait their turn, first come first served', async () => {
    const slots = new Slots(2);
    const gates = [deferred(), deferred(), deferred(), deferred()];
    const started: number[] = [];
    const runs = gates.map((gate, i) =>
      slots.run(async () => {
        started.push(i);
        await gate.promise;
        return i;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect(slots.inUse).toBe(2);
    gates[1]?.resolve();
    await runs[1];
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1, 2]);
    gates[0]?.resolve();
    gates[2]?.resolve();
    gates[3]?.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
    expect(slots.inUse).toBe(0);
  });

  it('gives a slot back when the work fails', async () => {
    const slots = new Slots(1);
    await expect(slots.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(slots.inUse).toBe(0);
    expect(await slots.run(() => Promise.resolve('next'))).toBe('next');
  });

  it('tryTake: a slot only when one is free, held until released (once, whatever the calls)', async () => {
    const slots = new Slots(2);
    const a = slots.tryTake();
    const b = slots.tryTake();
    expect(a && b).toBeTruthy();
    expect(slots.tryTake()).toBeUndefined();
    a?.release();
    a?.release(); // a second release must not free a slot someone else holds
    expect(slots.inUse).toBe(1);
    const c = slots.tryTake();
    expect(c).toBeDefined();
    expect(slots.tryTake()).toBeUndefined();
    b?.release();
    c?.release();
    expect(slots.inUse).toBe(0);
  });

  it('tryTake never jumps the queue: a released slot goes to the work waiting for it', async () => {
    const slots = new Slots(1);
    const held = slots.tryTake();
    const gate = deferred();
    let ran = false;
    const waiting = slots.run(async () => {
      ran = true;
      await gate.promise;
    });
    expect(slots.tryTake()).toBeUndefined();
    held?.release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(ran).toBe(true);
    expect(slots.tryTake()).toBeUndefined(); // the waiting work has it now
    gate.resolve();
    await waiting;
    expect(slots.tryTake()).toBeDefined();
  });
});
