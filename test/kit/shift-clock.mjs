/**
 * A preload for app processes in tests (`node --import`, e.g. through NODE_OPTIONS): this process's clock runs
 * TEST_CLOCK_SHIFT_MS milliseconds off the host's (negative: behind), as a replica on a host whose clock is
 * wrong would. `Date.now()`, `new Date()` and `Date()` are shifted; dates made from a value are not, nor are
 * timers or performance.now() (they measure durations, which a wrong clock does not change).
 */
const shiftMs = Number(process.env.TEST_CLOCK_SHIFT_MS ?? '0');
if (!Number.isFinite(shiftMs)) throw new Error(`TEST_CLOCK_SHIFT_MS must be a number of milliseconds`);

if (shiftMs !== 0) {
  const RealDate = Date;
  const now = () => RealDate.now() + shiftMs;
  globalThis.Date = new Proxy(RealDate, {
    construct: (target, args, newTarget) => Reflect.construct(target, args.length > 0 ? args : [now()], newTarget),
    apply: () => new RealDate(now()).toString(),
    get: (target, property, receiver) => (property === 'now' ? now : Reflect.get(target, property, receiver)),
  });
}
