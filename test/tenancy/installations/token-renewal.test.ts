import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Installation, InstallationQuery } from '@slack/bolt';
import { pino } from 'pino';
import { expect, it } from 'vitest';
import {
  type RenewToken,
  SqlInstallationStore,
  sealContext,
} from '../../../src/tenancy/installations/installation-store.js';
import { parseSecretKey, SecretBox, type SecretKey } from '../../../src/platform/secrets/secret-box.js';
import type { Store } from '../../../src/platform/store/store.js';
import { describeEachEngine, useMigratedStore } from '../../kit/store-engines.js';

/*
 * Token rotation across replicas: Slack takes each refresh token once. Two replicas (two stores, each on its
 * own connection to one database) authorizing the same workspace while its token is due renew it once.
 */

const TEAM = 'T0ROTATE01';
const ID = `T${TEAM}`;
const QUERY: InstallationQuery<false> = { teamId: TEAM, enterpriseId: undefined, isEnterpriseInstall: false };
const box = new SecretBox([parseSecretKey(randomBytes(32).toString('base64')) as SecretKey]);

/** Slack's oauth.v2.access for refresh tokens, as Slack does it: each refresh token works once. */
class SlackRefresh {
  readonly valid = new Set<string>(['xoxe-1-first']);
  calls = 0;
  /** Fails this many of the next renewals as Slack away would (the refresh token is then not spent). */
  unavailable = 0;
  readonly renew: RenewToken = async (refreshToken) => {
    this.calls += 1;
    await sleep(40); // a call to Slack takes a while: the other replica's requests come meanwhile
    if (this.unavailable > 0) {
      this.unavailable -= 1;
      throw new Error('An API error occurred: service_unavailable');
    }
    if (!this.valid.delete(refreshToken)) throw new Error('An API error occurred: invalid_refresh_token');
    const n = this.calls;
    this.valid.add(`xoxe-1-renewed-${n}`);
    return { token: `xoxe.xoxb-renewed-${n}`, refreshToken: `xoxe-1-renewed-${n}`, expiresIn: 43_200 };
  };
}

/** One replica: its own store (connection) and installation store, and the lines it logged. */
/** A replica; `renewalWaitMs`, how long its requests wait for another replica's renewal (the app's 2 s if not said). */
function replica(store: Store, slack: SlackRefresh, renewalWaitMs?: number) {
  const lines: { level: number; msg: string }[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { installations: new SqlInstallationStore(store, box, logger, slack.renew, renewalWaitMs), lines };
}

function installation(expiresInSeconds: number): Installation {
  return {
    team: { id: TEAM, name: 'Rotating' },
    enterprise: undefined,
    user: { id: 'U0INSTALL1', token: undefined, scopes: undefined },
    bot: {
      id: 'B0BOT00001',
      userId: 'U0BOT00001',
      token: 'xoxe.xoxb-first',
      refreshToken: 'xoxe-1-first',
      expiresAt: Math.floor(Date.now() / 1000) + expiresInSeconds,
      scopes: ['commands'],
    },
    appId: 'A0APP00001',
    tokenType: 'bot',
    isEnterpriseInstall: false,
    authVersion: 'v2',
  };
}

describeEachEngine('token renewal across replicas', (_engine, create) => {
  const db = useMigratedStore(create);

  it('two replicas, ten requests each at once, a token due: one renewal, every request gets the new token', async () => {
    const slack = new SlackRefresh();
    const [a, b] = [replica(db.store, slack), replica(db.open(), slack)];
    await a.installations.storeInstallation(installation(600)); // within the two hours before expiry

    const fetched = await Promise.all(
      [a, b].flatMap((r) => Array.from({ length: 10 }, () => r.installations.fetchInstallation(QUERY))),
    );
    expect(slack.calls).toBe(1);
    expect(new Set(fetched.map((i) => i.bot?.token))).toEqual(new Set(['xoxe.xoxb-renewed-1']));
    // Bolt is never handed what it would renew with on its own.
    expect(fetched.every((i) => i.bot?.refreshToken === undefined && i.bot?.expiresAt === undefined)).toBe(true);
    const stored = await db.store.installationRows.get(ID);
    expect(box.open(stored?.sealed.botRefreshToken ?? '', sealContext(ID, 'botRefreshToken'))).toBe('xoxe-1-renewed-1');
    expect((stored?.details as { bot: { expiresAt: number } }).bot.expiresAt).toBeGreaterThan(
      Date.now() / 1000 + 40_000,
    );
    const warnings = [...a.lines, ...b.lines].filter((l) => l.level >= 40);
    expect(warnings).toEqual([]);
    expect([...a.lines, ...b.lines].filter((l) => l.msg === 'token renewed')).toHaveLength(1);
    // The lease ended with the renewal; the next requests renew nothing (the new token lasts 12 hours).
    await Promise.all([a, b].map((r) => r.installations.fetchInstallation(QUERY)));
    expect(slack.calls).toBe(1);
  });

  it('a renewal Slack refuses gives its lease up: the next request, on the other replica, renews', async () => {
    const slack = new SlackRefresh();
    slack.unavailable = 1;
    const [a, b] = [replica(db.store, slack), replica(db.open(), slack)];
    await a.installations.storeInstallation(installation(600));

    // Not expired yet: the request goes on with the current token, and says why it was not renewed.
    expect((await a.installations.fetchInstallation(QUERY)).bot?.token).toBe('xoxe.xoxb-first');
    expect(a.lines.map((l) => l.msg)).toContain('Slack did not renew a token');
    expect((await b.installations.fetchInstallation(QUERY)).bot?.token).toBe('xoxe.xoxb-renewed-2');
    expect(slack.calls).toBe(2);
  });

  it('another replica holding the lease: a request waits for it, then goes on with the current token', async () => {
    const slack = new SlackRefresh();
    const a = replica(db.store, slack, 200); // the whole wait is spent here: a shorter one than the app's
    await a.installations.storeInstallation(installation(600));
    const before = (await db.store.installationRows.get(ID))?.sealed ?? {};
    // A replica that took the lease and has not stored a renewal yet (it may be slow, or have died).
    expect(await db.open().installationRows.claimRenewal(ID, before, 30_000)).toBe(true);

    const startedAt = Date.now();
    expect((await a.installations.fetchInstallation(QUERY)).bot?.token).toBe('xoxe.xoxb-first');
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(150);
    expect(slack.calls).toBe(0); // its refresh token would be refused after the other replica's renewal
    expect(a.lines.map((l) => l.msg)).toContain('token not renewed now: another replica is renewing it');
  });

  it('an expired token that cannot be renewed fails the authorization, and says why', async () => {
    const slack = new SlackRefresh();
    slack.unavailable = 1;
    const a = replica(db.store, slack);
    await a.installations.storeInstallation(installation(-60));
    await expect(a.installations.fetchInstallation(QUERY)).rejects.toThrow(/expired and is not renewed/);
    expect(a.lines.find((l) => l.msg === 'token not renewed now: Slack did not renew it')).toMatchObject({
      expired: true,
    });
    // Slack back: the next request renews it.
    expect((await a.installations.fetchInstallation(QUERY)).bot?.token).toBe('xoxe.xoxb-renewed-2');
  });

  it('resealing leaves tokens under renewal alone: the renewal stores its tokens', async () => {
    const slack = new SlackRefresh();
    const a = replica(db.store, slack);
    await a.installations.storeInstallation(installation(600));
    const before = (await db.store.installationRows.get(ID))?.sealed ?? {};
    expect(await db.store.installationRows.claimRenewal(ID, before, 30_000)).toBe(true);
    const resealed = { ...before, botToken: box.seal('xoxe.xoxb-first', sealContext(ID, 'botToken')) };
    expect(await db.store.installationRows.replaceSealed(ID, before, resealed)).toBe(false);
    const renewed = { ...before, botRefreshToken: box.seal('xoxe-1-r', sealContext(ID, 'botRefreshToken')) };
    expect(await db.store.installationRows.storeRenewed(ID, before, renewed, {})).toBe(true);
    // The lease ended: a reseal goes through again.
    const now = (await db.store.installationRows.get(ID))?.sealed ?? {};
    expect(await db.store.installationRows.replaceSealed(ID, now, { ...now })).toBe(true);
  });
});
