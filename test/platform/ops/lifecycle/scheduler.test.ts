import { afterEach, describe, expect, it, vi } from 'vitest';
import { Scheduler } from '../../../../src/platform/ops/lifecycle/scheduler.js';

describe('the scheduler of periodic work', () => {
  afterEach(() => vi.useRealTimers());

  it('runs a job at start and then every period, never two runs at once, and stop waits for the run under way', async () => {
    vi.useFakeTimers();
    const scheduler = new Scheduler(() => 0.5); // no jitter drawn
    let runs = 0;
    let finish: () => void = () => undefined;
    scheduler.schedule({
      name: 'sweep',
      everyMs: 100,
      run: () => {
        runs += 1;
        return new Promise<void>((resolve) => (finish = resolve));
      },
      failed: () => undefined,
    });
    expect(runs).toBe(0); // nothing before start
    scheduler.start();
    expect(runs).toBe(1);
    await vi.advanceTimersByTimeAsync(350); // the first run is still going: these turns are skipped
    expect(runs).toBe(1);
    finish();
    await vi.advanceTimersByTimeAsync(100);
    expect(runs).toBe(2);
    let stopped = false;
    const stopping = scheduler.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false); // the second run is still going
    finish();
    await stopping;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(runs).toBe(2); // nothing after stop
  });

  it('reports a failed run and runs again at the next turn; waits for the first turn when atStart is false', async () => {
    vi.useFakeTimers();
    const scheduler = new Scheduler(() => 0.5);
    const failures: unknown[] = [];
    let runs = 0;
    scheduler.schedule({
      name: 'prune',
      everyMs: 100,
      atStart: false,
      run: async () => {
        runs += 1;
        throw new Error(`run ${runs} failed`);
      },
      failed: (error) => failures.push(error),
    });
    scheduler.start();
    expect(runs).toBe(0);
    await vi.advanceTimersByTimeAsync(200);
    expect(runs).toBe(2);
    expect(failures.map((e) => (e as Error).message)).toEqual(['run 1 failed', 'run 2 failed']);
    await scheduler.stop();
  });

  it('moves each wait by the jitter drawn, so replicas started together drift apart', async () => {
    vi.useFakeTimers();
    const runsAt = (draw: number) => {
      const scheduler = new Scheduler(() => draw);
      const at: number[] = [];
      scheduler.schedule({
        name: 'remind',
        everyMs: 1_000,
        jitter: 0.2,
        atStart: false,
        run: async () => void at.push(Date.now()),
        failed: () => undefined,
      });
      scheduler.start();
      return { at, scheduler };
    };
    const start = Date.now();
    const early = runsAt(0); // the most a wait is shortened: 20 %
    const late = runsAt(1); // the most it is lengthened
    await vi.advanceTimersByTimeAsync(2_500);
    expect(early.at.map((t) => t - start)).toEqual([800, 1_600, 2_400]);
    expect(late.at.map((t) => t - start)).toEqual([1_200, 2_400]);
    await Promise.all([early.scheduler.stop(), late.scheduler.stop()]);
  });

  it('names its jobs, and a job added after start runs at once', async () => {
    const scheduler = new Scheduler();
    scheduler.start();
    let ran = false;
    scheduler.schedule({ name: 'late', everyMs: 60_000, run: async () => void (ran = true), failed: () => undefined });
    expect(scheduler.names).toEqual(['late']);
    expect(ran).toBe(true);
    await scheduler.stop();
  });

  it('runs a quickened job at the period given for its name, and refuses to start with a name no job has', async () => {
    vi.useFakeTimers();
    const scheduler = new Scheduler(() => 0.5, { sweep: 50 });
    let runs = 0;
    scheduler.schedule({ name: 'sweep', everyMs: 60_000, run: async () => void (runs += 1), failed: () => undefined });
    scheduler.start();
    await vi.advanceTimersByTimeAsync(120);
    expect(runs).toBe(3); // at start, then at 50 and 100 ms
    await scheduler.stop();

    const misnamed = new Scheduler(Math.random, { swept: 50 });
    misnamed.schedule({ name: 'sweep', everyMs: 60_000, run: async () => undefined, failed: () => undefined });
    expect(() => misnamed.start()).toThrow('no job to quicken is named swept');
  });
});
