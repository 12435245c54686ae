/** One piece of periodic background work: a sweep, a pass of reminders, a retention prune. */
export interface Job {
  /** What it is, for the logs and for whoever lists the jobs. */
  name: string;
  /** Time between the starts of two runs (before jitter). */
  everyMs: number;
  /** Also run at once (what a previous process left due); default true. */
  atStart?: boolean;
  /**
   * Each wait is moved by up to this fraction of `everyMs`, either way (default 0.1): replicas started together
   * then drift apart instead of sweeping and claiming the same rows at the same moment. 0 for none.
   */
  jitter?: number;
  run: () => Promise<unknown>;
  /** Told when a run fails; the next run comes at its time all the same. */
  failed: (error: unknown) => void;
}

interface Scheduled {
  job: Job;
  timer: NodeJS.Timeout | undefined;
  running: Promise<void> | undefined;
  stopped: boolean;
}

/**
 * The process's one place for periodic background work: each named job runs at its period (with jitter),
 * never two runs of one job at once (a run still going when its time comes is left to finish, and that turn
 * skipped), and its timers do not keep the process alive. `stop` ends them all: no new run starts, and the
 * runs under way are waited for.
 */
export class Scheduler {
  private readonly jobs: Scheduled[] = [];
  private started = false;
  private stopping: Promise<void> | undefined;

  /**
   * `quickened`: periods that replace some jobs' own, by job name (tests only: a sweep every 50 ms rather than
   * a test waiting for the app's next one). A name that no job has fails the start, so a renamed job is noticed.
   */
  constructor(
    private readonly random: () => number = Math.random,
    private readonly quickened: Readonly<Record<string, number>> = {},
  ) {}

  /** Adds a job; it runs from `start()` (at once when the scheduler has started). Returns a stop of that job. */
  schedule(job: Job): () => Promise<void> {
    const scheduled: Scheduled = { job, timer: undefined, running: undefined, stopped: false };
    this.jobs.push(scheduled);
    if (this.started) this.begin(scheduled);
    return () => this.end(scheduled);
  }

  /** The names of the jobs, in the order they were added. */
  get names(): string[] {
    return this.jobs.map(({ job }) => job.name);
  }

  start(): void {
    if (this.started) return;
    const unknown = Object.keys(this.quickened).filter((name) => !this.names.includes(name));
    if (unknown.length > 0) throw new Error(`no job to quicken is named ${unknown.join(', ')}`);
    this.started = true;
    for (const scheduled of this.jobs) this.begin(scheduled);
  }

  stop(): Promise<void> {
    this.stopping ??= Promise.all(this.jobs.map((scheduled) => this.end(scheduled))).then(() => undefined);
    return this.stopping;
  }

  private begin(scheduled: Scheduled): void {
    if (scheduled.stopped || this.stopping) return;
    if (scheduled.job.atStart ?? true) this.tick(scheduled);
    this.next(scheduled);
  }

  private next(scheduled: Scheduled): void {
    if (scheduled.stopped) return;
    const { name, jitter = 0.1 } = scheduled.job;
    const everyMs = this.quickened[name] ?? scheduled.job.everyMs;
    const wait = Math.max(0, everyMs * (1 + jitter * (2 * this.random() - 1)));
    scheduled.timer = setTimeout(() => {
      this.tick(scheduled);
      this.next(scheduled);
    }, wait);
    scheduled.timer.unref();
  }

  private tick(scheduled: Scheduled): void {
    if (scheduled.running || scheduled.stopped) return;
    const { run, failed } = scheduled.job;
    let running: Promise<void>;
    try {
      running = run().then(() => undefined, failed);
    } catch (error) {
      failed(error);
      return;
    }
    scheduled.running = running.finally(() => (scheduled.running = undefined));
  }

  private async end(scheduled: Scheduled): Promise<void> {
    scheduled.stopped = true;
    clearTimeout(scheduled.timer);
    await scheduled.running;
  }
}
