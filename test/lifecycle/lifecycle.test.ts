import { describe, expect, it } from 'vitest';
import { InFlight } from '../../src/lifecycle/in-flight.js';
import { Readiness } from '../../src/lifecycle/readiness.js';
import { createSecretScrubber } from '../../src/logging/secret-scrubber.js';

const later = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

describe('InFlight', () => {
  it('is idle at once when nothing runs', async () => {
    await expect(new InFlight().idle(10)).resolves.toBe(true);
  });

  it('waits for tracked work, failed work included', async () => {
    const inFlight = new InFlight();
    const ok = inFlight.track(later(50, 'done'));
    const failed = inFlight.track(later(80, 0).then(() => Promise.reject(new Error('x')))).catch(() => 'failed');
    expect(inFlight.count).toBe(2);
    await expect(inFlight.idle(1_000)).resolves.toBe(true);
    expect(await ok).toBe('done');
    expect(await failed).toBe('failed');
    expect(inFlight.count).toBe(0);
  });

  it('gives up waiting after the grace period', async () => {
    const inFlight = new InFlight();
    void inFlight.track(later(500, 0));
    await expect(inFlight.idle(30)).resolves.toBe(false);
  });
});

describe('Readiness', () => {
  const scrub = createSecretScrubber(['pw-secret-123']);

  it('is ready once migrated and while the store answers', async () => {
    const readiness = new Readiness({ ping: async () => undefined }, scrub);
    expect(await readiness.check()).toEqual({ ready: false, reason: 'database migrations not applied yet' });
    readiness.markMigrated();
    expect(await readiness.check()).toEqual({ ready: true });
    readiness.markStopping();
    expect(await readiness.check()).toEqual({ ready: false, reason: 'shutting down' });
  });

  it('says why the database is not ready, without secrets', async () => {
    const failing = new Readiness({ ping: async () => Promise.reject(new Error('password pw-secret-123 rejected')) }, scrub);
    expect(await failing.check()).toEqual({ ready: false, reason: 'database unreachable: password [redacted] rejected' });
    const unmigrated = new Readiness({ ping: async () => undefined }, scrub);
    unmigrated.markMigrationFailed(Object.assign(new Error('x'), { code: 'EACCES' }));
    expect(await unmigrated.check()).toEqual({ ready: false, reason: 'database migrations not applied: EACCES' });
  });
});
