/**
 * The one budget of work in flight for the whole process: every Slack request (command, click, submission,
 * shortcut, event) holds a place from its arrival until its last outbound call has ended, and background
 * work (Home refreshes, the sweeper) is counted too. Every outbound call has a deadline, so places come
 * back in bounded time, and what the process holds in memory is bounded by the size of the budget. (The
 * deletion sweeper runs one sweep at a time on its own and is waited for at shutdown separately.)
 *
 * Not cockatiel's bulkhead, which the app's smaller pools use: `track` counts work that must run whatever the
 * load, past the limit (a bulkhead refuses or queues it), the bulk worker reads `count` to leave the last
 * places to interactive requests, and shutdown waits for `idle`; a bulkhead gives none of the three.
 */
export class WorkBudget {
  private running = 0;
  private idleWaiters: Array<() => void> = [];

  constructor(readonly limit: number) {}

  get count(): number {
    return this.running;
  }

  get isFull(): boolean {
    return this.running >= this.limit;
  }

  /** Takes a place for new work, or returns false when the budget is full (the caller refuses the work). */
  tryAcquire(): boolean {
    if (this.isFull) return false;
    this.running += 1;
    return true;
  }

  release(): void {
    this.running -= 1;
    if (this.running === 0) for (const wake of this.idleWaiters.splice(0)) wake();
  }

  /**
   * Counts work that must run whatever the load (a Home refresh a finished request asked for): it may
   * take the count past the limit for a moment, which then refuses new requests instead.
   */
  async track<T>(work: Promise<T>): Promise<T> {
    this.running += 1;
    try {
      return await work;
    } finally {
      this.release();
    }
  }

  /** Resolves true once nothing is running, or false when `timeoutMs` passes first (shutdown). */
  idle(timeoutMs: number): Promise<boolean> {
    if (this.running === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.idleWaiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }
}
