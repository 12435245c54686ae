import { describe, expect, it } from 'vitest';
import { withDeadline } from '../../../../src/platform/ops/lifecycle/with-deadline.js';

describe('withDeadline', () => {
  it('gives the value of a promise that settles in time', async () => {
    await expect(withDeadline(Promise.resolve('ok'), 50)).resolves.toBe('ok');
    await expect(withDeadline(Promise.reject(new Error('refused')), 50)).rejects.toThrow('refused');
  });

  it('stops waiting once the time is up', async () => {
    await expect(withDeadline(new Promise(() => undefined), 30)).rejects.toThrow('no answer within 30 ms');
  });
});
