/** One piece of background work run on a timer: a sweep, a pass of reminders, a retention prune. */
export interface Periodic {
  /** Time between the starts of two runs. */
  everyMs: number;
  /** Also run at once (what a previous process left due); default true. */
  atStart?: boolean;
  run: () => Promise<unknown>;
  /** Told when a run fails; the next run comes at its time all the same. */
  failed: (error: unknown) => void;
}

/**
 * Starts a periodic piece of work: never two runs at once (a run still going when the timer fires is left to
 * finish, and that tick skipped), and the timer does not keep the process alive. Returns how to stop it: no
 * new run starts, and the run under way is waited for.
 */
export function startPeriodic({ everyMs, atStart = true, run, failed }: Periodic): () => Promise<void> {
  let running: Promise<void> | undefined;
  const tick = () => {
    if (running) return;
    running = run()
      .then(() => undefined, failed)
      .finally(() => (running = undefined));
  };
  if (atStart) tick();
  const timer = setInterval(tick, everyMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
