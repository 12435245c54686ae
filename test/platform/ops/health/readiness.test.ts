import { describe, expect, it } from 'vitest';
import { WorkBudget } from '../../../../src/platform/slack/admission/work-budget.js';
import { Readiness } from '../../../../src/platform/ops/health/readiness.js';
import { createSecretScrubber } from '../../../../src/platform/ops/telemetry/secret-scrubber.js';

describe('Readiness', () => {
  const scrub = createSecretScrubber(['pw-secret-123']);

  it('is ready once migrated and while the store answers', async () => {
    const readiness = new Readiness({ ping: async () => undefined }, scrub, new WorkBudget(10));
    expect(await readiness.check()).toEqual({ ready: false, reason: 'database migrations not applied yet' });
    readiness.markMigrated();
    expect(await readiness.check()).toEqual({ ready: true });
    readiness.markStopping();
    expect(await readiness.check()).toEqual({ ready: false, reason: 'shutting down' });
  });

  it('is not ready while its work budget is full, so a load balancer sends new requests elsewhere', async () => {
    const work = new WorkBudget(2);
    const readiness = new Readiness({ ping: async () => undefined }, scrub, work);
    readiness.markMigrated();
    work.tryAcquire();
    expect(await readiness.check()).toEqual({ ready: true });
    work.tryAcquire();
    expect(await readiness.check()).toEqual({ ready: false, reason: 'saturated: 2 of 2 requests in progress' });
    work.release();
    expect(await readiness.check()).toEqual({ ready: true });
    readiness.markStopping();
    expect(await readiness.check()).toEqual({ ready: false, reason: 'shutting down' });
  });

  it('says why the database is not ready, without secrets', async () => {
    const failing = new Readiness(
      { ping: async () => Promise.reject(new Error('password pw-secret-123 rejected')) },
      scrub,
      new WorkBudget(10),
    );
    expect(await failing.check()).toEqual({
      ready: false,
      reason: 'database unreachable: password [redacted] rejected',
    });
    const unmigrated = new Readiness({ ping: async () => undefined }, scrub, new WorkBudget(10));
    unmigrated.markMigrationFailed(Object.assign(new Error('x'), { code: 'EACCES' }));
    expect(await unmigrated.check()).toEqual({ ready: false, reason: 'database migrations not applied: EACCES' });
  });

  it('says why in the words of the describer it is given (describeDatabaseError in the app)', async () => {
    const refused = Object.assign(new Error('password authentication failed'), { code: '28P01' });
    const describe = (error: unknown) => `described ${(error as { code: string }).code} pw-secret-123`;
    const readiness = new Readiness({ ping: async () => Promise.reject(refused) }, scrub, new WorkBudget(10), describe);
    expect(await readiness.check()).toEqual({
      ready: false,
      reason: 'database unreachable: described 28P01 [redacted]',
    });
    const unmigrated = new Readiness({ ping: async () => undefined }, scrub, new WorkBudget(10), describe);
    unmigrated.markMigrationFailed(refused);
    expect(await unmigrated.check()).toEqual({
      ready: false,
      reason: 'database migrations not applied: described 28P01 [redacted]',
    });
  });
});
