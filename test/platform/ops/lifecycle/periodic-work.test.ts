import { afterEach, describe, expect, it, vi } from 'vitest';
import { startPeriodic } from '../../../../src/platform/ops/lifecycle/periodic-work.js';

describe('startPeriodic', () => {
  afterEach(() => vi.useRealTimers());

  it('runs at start and then every interval, never two runs at once, and stop waits for the run under way', async () => {
    vi.useFakeTimers();
    let runs = 0;
    let finish: () => void = () => undefined;
    const stop = startPeriodic({
      everyMs: 100,
      run: () => {
        runs += 1;
        return new Promise<void>((resolve) => (finish = resolve));
      },
      failed: () => undefined,
    });
    expect(runs).toBe(1);
    await vi.advanceTimersByTimeAsync(350); // the first run is still going: these ticks are skipped
    expect(runs).toBe(1);
    finish();
    await vi.advanceTimersByTimeAsync(100);
    expect(runs).toBe(2);
    let stopped = false;
    const stopping = stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false); // the second run is still going
    finish();
    await stopping;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(runs).toBe(2); // nothing after stop
  });

  it('reports a failed run and runs again at the next tick; waits for the first tick when atStart is false', async () => {
    vi.useFakeTimers();
    const failures: unknown[] = [];
    let runs = 0;
    const stop = startPeriodic({
      everyMs: 100,
      atStart: false,
      run: async () => {
        runs += 1;
        throw new Error(`run ${runs} failed`);
      },
      failed: (error) => failures.push(error),
    });
    expect(runs).toBe(0);
    await vi.advanceTimersByTimeAsync(200);
    expect(runs).toBe(2);
    expect(failures.map((e) => (e as Error).message)).toEqual(['run 1 failed', 'run 2 failed']);
    await stop();
  });
});
