import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { testLogger } from '../../kit/test-logger.js';
import { createSecretScrubber } from '../../../src/platform/ops/telemetry/secret-scrubber.js';
import {
  MintAccounts,
  mintKeySealContext,
  type MintAccountEvent,
  type MintAccountsOptions,
} from '../../../src/tenancy/mint-accounts/mint-accounts.js';
import {
  CONNECT_MINT_ACCOUNT_ACTION,
  NoMintAccount,
  UnreadableMintAccount,
} from '../../../src/tenancy/mint-accounts/not-connected.js';
import { MintApiClient } from '../../../src/platform/mint/mint-api-client.js';
import type { HostResolver } from '../../../src/platform/mint/public-address.js';
import type { MintApiError } from '../../../src/platform/mint/mint-api-error.js';
import { MockMintService } from '../../../src/operator/mock-mint-api/mock-mint-service.js';
import { RequestEnded } from '../../../src/platform/slack/pipeline/request-ended.js';
import { parseSecretKey, SecretBox } from '../../../src/platform/secrets/secret-box.js';
import { mintErrorText } from '../../../src/platform/blocks/mint-error-text.js';
import { describeEachEngine, useMigratedStore } from '../../kit/store-engines.js';

const OPERATOR_KEY = 'operator-key-0a1b2c3d4e';
const KEY_A = 'team-a-key-5f6e7d8c9b1234';
const KEY_B = 'team-b-key-1a2b3c3d4e5678';
const TEAM_A = 'T0TEAMA01';
const TEAM_B = 'T0TEAMB02';
const ADMIN = 'U0ADMIN01';
const link = { nftId: 'nft-1', walletOptions: 'CUSTODIAL' } as const;

let mint: MockMintService;
let otherMint: MockMintService;
beforeAll(async () => {
  mint = new MockMintService({ apiKey: OPERATOR_KEY });
  otherMint = new MockMintService({ apiKey: KEY_A });
  await Promise.all([mint.listen(), otherMint.listen()]);
});
afterAll(async () => Promise.all([mint.close(), otherMint.close()]));
beforeEach(() => {
  mint.reset();
  otherMint.reset();
  mint.acceptKey(KEY_A);
  mint.acceptKey(KEY_B);
});

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error,
  );
}

describeEachEngine('Mint accounts, one per workspace', (_engine, create) => {
  const secretKeys = [parseSecretKey(randomBytes(32).toString('base64'))].filter((k) => k !== undefined);
  const db = useMigratedStore(create);
  let operator: MintApiClient;
  let logs = '';
  const made: MintAccounts[] = [];

  function accounts(options: MintAccountsOptions & { perWorkspaceUrl?: boolean; single?: boolean } = {}) {
    const scrub = createSecretScrubber([OPERATOR_KEY]);
    const logger = testLogger('debug', scrub, (text) => (logs += text));
    const service = new MintAccounts(
      {
        config: {
          distribution: options.single
            ? undefined
            : { clientId: '1.2', clientSecret: 'client-secret-x', stateSecret: 'state-secret-y' },
          secretKeys,
          mint: { baseUrl: mint.url, apiKey: OPERATOR_KEY, timeoutMs: 2_000 },
          mintBaseUrlPerWorkspace: options.perWorkspaceUrl ?? false,
        },
        store: db.store,
        mintApi: operator,
        scrub,
        logger,
      },
      { ...options, client: { retryBaseDelayMs: 10, ...options.client } },
    );
    made.push(service);
    return service;
  }

  beforeEach(async () => {
    logs = '';
    operator = new MintApiClient({ baseUrl: mint.url, apiKey: OPERATOR_KEY, timeoutMs: 2_000, scrub: (t) => t });
  });
  afterEach(async () => {
    for (const service of made.splice(0)) await service.close();
    await operator.close();
  });

  it('in single-workspace mode, gives every workspace the operator’s client', async () => {
    const single = accounts({ single: true });
    expect(single.distributed).toBe(false);
    expect(await single.forTeam(TEAM_A)).toBe(operator);
    expect(await single.forTeam(undefined)).toBe(operator);
    expect(await single.statusFor(TEAM_B)).toBe(operator.status);
    expect(await single.account(TEAM_A)).toBeUndefined();
  });

  it('refuses a workspace without an account with how to connect, and a button for admins', async () => {
    const error = await failure(accounts().forTeam(TEAM_A));
    expect(error).toBeInstanceOf(NoMintAccount);
    expect(error).toBeInstanceOf(RequestEnded);
    const ended = error as NoMintAccount;
    expect(ended.outcome).toBe('refused');
    expect(ended.text).toContain('No Mint account is connected to this workspace');
    expect(ended.text).toContain('Connect your Mint account');
    expect(JSON.stringify(ended.blocks)).toContain(CONNECT_MINT_ACCOUNT_ACTION);
    expect(ended.stepText).toContain('App Home');
    expect(await accounts().statusFor(TEAM_A)).toBeUndefined();
  });

  it('sends each workspace’s calls with its own key, sealed at rest and bound to its workspace', async () => {
    const service = accounts();
    await service.connect(TEAM_A, { apiKey: KEY_A }, { by: ADMIN });
    await service.connect(TEAM_B, { apiKey: KEY_B }, { by: 'U0ADMIN02' });
    await (await service.forTeam(TEAM_A)).createLink(link);
    await (await service.forTeam(TEAM_B)).createLink({ ...link, nftId: 'nft-2' });
    expect(
      mint.requestsTo('create_link').map((r) => [r.headers['x-api-key'], (r.body as { nftId: string }).nftId]),
    ).toEqual([
      [KEY_A, 'nft-1'],
      [KEY_B, 'nft-2'],
    ]);

    const stored = await db.store.mintAccountRows.get(TEAM_A);
    if (!stored) throw new Error('not stored');
    expect(stored).toMatchObject({ keyLast4: '1234', connectedBy: ADMIN, refused: undefined, baseUrl: undefined });
    expect(stored.sealedKey).not.toContain(KEY_A);
    expect(new SecretBox(secretKeys).open(stored.sealedKey, mintKeySealContext(TEAM_A))).toBe(KEY_A);
    expect(await service.account(TEAM_A)).not.toHaveProperty('sealedKey');

    // A's sealed key copied into B's row does not open there.
    const fresh = accounts();
    await db.store.mintAccountRows.save({ ...stored, teamId: TEAM_B });
    expect(await failure(fresh.forTeam(TEAM_B))).toBeInstanceOf(UnreadableMintAccount);
    expect(logs).toContain('cannot open the Mint API key of a workspace');
    expect(logs).not.toContain(KEY_A);
    expect(logs).not.toContain(KEY_B);
  });

  it('replaces and removes a key, audited with the last four characters only, and drops the old client', async () => {
    const service = accounts();
    const events: MintAccountEvent[] = [];
    service.onChange((event) => events.push(event));
    const first = await service.connect(TEAM_A, { apiKey: KEY_A }, { by: ADMIN });
    expect(first.previous).toBeUndefined();
    const before = await service.forTeam(TEAM_A);
    const replaced = await service.connect(TEAM_A, { apiKey: KEY_B }, { by: 'U0ADMIN02' });
    expect(replaced.previous?.keyLast4).toBe('1234');
    expect(replaced.account.keyLast4).toBe('5678');
    const after = await service.forTeam(TEAM_A);
    expect(after).not.toBe(before);
    await after.createLink(link);
    expect(mint.requestsTo('create_link')[0]?.headers['x-api-key']).toBe(KEY_B);

    expect((await service.remove(TEAM_A, { by: ADMIN }))?.keyLast4).toBe('5678');
    expect(await service.remove(TEAM_A, { by: ADMIN })).toBeUndefined(); // nothing left: no entry either
    expect(await failure(service.forTeam(TEAM_A))).toBeInstanceOf(NoMintAccount);
    expect(events.map((e) => e.change)).toEqual(['connected', 'replaced', 'removed']);

    const audit = (await db.store.audit.list({ limit: 10 })).reverse();
    expect(audit.map((e) => [e.operation, e.actorId, e.teamId, e.inputs, e.outcome])).toEqual([
      ['mint_account.connect', ADMIN, TEAM_A, { keyLast4: '1234' }, 'succeeded'],
      ['mint_account.replace', 'U0ADMIN02', TEAM_A, { keyLast4: '5678', previousKeyLast4: '1234' }, 'succeeded'],
      ['mint_account.remove', ADMIN, TEAM_A, { keyLast4: '5678' }, 'succeeded'],
    ]);
    expect(JSON.stringify(audit)).not.toMatch(new RegExp(`${KEY_A}|${KEY_B}`));
  });

  it('keeps the circuit breaker per key: one workspace’s outage never holds another back', async () => {
    const service = accounts({ client: { breaker: { consecutiveFailures: 2, halfOpenAfterMs: 60_000 } } });
    await service.connect(TEAM_A, { apiKey: KEY_A }, { by: ADMIN });
    await service.connect(TEAM_B, { apiKey: KEY_B }, { by: ADMIN });
    const [a, b] = [await service.forTeam(TEAM_A), await service.forTeam(TEAM_B)];
    mint.failNext('*', { mode: 'status', status: 503 }, 2, KEY_A);
    for (let i = 0; i < 2; i += 1) expect(((await failure(a.createLink(link))) as MintApiError).status).toBe(503);
    expect(a.status.circuit).toBe('open');

    const sent = mint.requests.length;
    const heldBack = (await failure(a.createLink(link))) as MintApiError;
    expect(heldBack.kind).toBe('unavailable');
    expect(heldBack.status).toBeUndefined(); // not sent
    expect(mint.requests).toHaveLength(sent);

    await b.createLink(link);
    expect(b.status.circuit).toBe('closed');
    expect(mint.requests.at(-1)?.headers['x-api-key']).toBe(KEY_B);
    expect((await service.statusFor(TEAM_A))?.circuit).toBe('open');
    expect((await service.statusFor(TEAM_B))?.circuit).toBe('closed');
  });

  it('keeps the service’s requests to wait (429, Retry-After) per key', async () => {
    const service = accounts();
    await service.connect(TEAM_A, { apiKey: KEY_A }, { by: ADMIN });
    await service.connect(TEAM_B, { apiKey: KEY_B }, { by: ADMIN });
    const [a, b] = [await service.forTeam(TEAM_A), await service.forTeam(TEAM_B)];
    mint.failNext('create_link', { mode: 'status', status: 429, headers: { 'retry-after': '120' } }, 1, KEY_A);
    expect(((await failure(a.createLink(link))) as MintApiError).kind).toBe('rate_limited');
    const sent = mint.requests.length;
    const waiting = (await failure(a.createLink(link))) as MintApiError;
    expect(waiting.message).toContain('asked the app to wait');
    expect(mint.requests).toHaveLength(sent);
    expect((await service.statusFor(TEAM_A))?.pausedUntil).toBeInstanceOf(Date);

    await b.createLink(link);
    expect(mint.requests).toHaveLength(sent + 1);
    expect((await service.statusFor(TEAM_B))?.pausedUntil).toBeUndefined();
  });

  it('records a key the service refuses on the account, tells admins how to fix it, and clears it on a success', async () => {
    const service = accounts();
    const events: MintAccountEvent[] = [];
    service.onChange((event) => events.push(event));
    const wrongKey = 'not-a-known-key-77aa88bb';
    await service.connect(TEAM_A, { apiKey: wrongKey }, { by: ADMIN });
    const refused = (await failure((await service.forTeam(TEAM_A)).createLink(link))) as MintApiError;
    expect(refused.kind).toBe('unauthorized');
    expect(mintErrorText(refused, 'the mint link', 'created')).toContain(
      'replace the Mint API key in Mintlink’s App Home',
    );
    await vi.waitFor(() => expect(events.map((e) => e.change)).toEqual(['connected', 'refused']));
    expect((await service.account(TEAM_A))?.refused).toMatchObject({ status: 401 });
    expect((await db.store.mintAccountRows.get(TEAM_A))?.refused?.status).toBe(401);
    expect((await service.statusFor(TEAM_A))?.lastFailure?.kind).toBe('unauthorized');

    // Another replica, which never called the service with this key, shows the refusal all the same.
    expect((await accounts().statusFor(TEAM_A))?.lastFailure?.kind).toBe('unauthorized');

    // A second refusal writes nothing more; the service taking the key clears the refusal.
    await failure((await service.forTeam(TEAM_A)).createLink(link));
    mint.acceptKey(wrongKey);
    await (await service.forTeam(TEAM_A)).createLink(link);
    await vi.waitFor(() => expect(events.map((e) => e.change)).toEqual(['connected', 'refused', 'accepted']));
    expect((await db.store.mintAccountRows.get(TEAM_A))?.refused).toBeUndefined();
    expect(logs).not.toContain(wrongKey);
  });

  it('brings a key connected, replaced or removed on another replica into force here when the change feed tells it', async () => {
    const here = accounts();
    const elsewhere = accounts();
    expect(await failure(here.forTeam(TEAM_A))).toBeInstanceOf(NoMintAccount); // kept: none
    await elsewhere.connect(TEAM_A, { apiKey: KEY_A }, { by: ADMIN });
    await vi.waitFor(async () => expect((await here.account(TEAM_A))?.keyLast4).toBe(KEY_A.slice(-4)));
    await elsewhere.connect(TEAM_A, { apiKey: KEY_B }, { by: ADMIN });
    await vi.waitFor(async () => expect((await here.account(TEAM_A))?.keyLast4).toBe(KEY_B.slice(-4)));
    await elsewhere.remove(TEAM_A, { by: ADMIN });
    await vi.waitFor(async () => expect(await failure(here.forTeam(TEAM_A))).toBeInstanceOf(NoMintAccount));
  });

  it('uses a workspace’s own base URL only when the operator allows it', async () => {
    // otherMint is on this host, as every test service is: taken here as the public service it stands for.
    const allowed = accounts({ perWorkspaceUrl: true, addressPolicy: { allowLoopback: true } });
    await allowed.connect(TEAM_A, { apiKey: KEY_A, baseUrl: otherMint.url }, { by: ADMIN });
    await (await allowed.forTeam(TEAM_A)).createLink(link);
    expect(otherMint.requestsTo('create_link')).toHaveLength(1);
    expect(mint.requestsTo('create_link')).toHaveLength(0);
    expect((await allowed.account(TEAM_A))?.baseUrl).toBe(otherMint.url);

    const notAllowed = accounts();
    await notAllowed.connect(TEAM_B, { apiKey: KEY_B, baseUrl: otherMint.url }, { by: ADMIN });
    expect((await notAllowed.account(TEAM_B))?.baseUrl).toBeUndefined();
    await (await notAllowed.forTeam(TEAM_B)).createLink(link);
    expect(mint.requestsTo('create_link')).toHaveLength(1);
  });

  it('checks a workspace’s own URL where it connects: a name public when saved and private later is refused', async () => {
    const table: Record<string, string> = { 'mint.acme.example': '93.184.215.14' };
    const lookups: string[] = [];
    const resolveHost: HostResolver = async (hostname) => {
      lookups.push(hostname);
      const address = table[hostname];
      if (!address) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
      return [{ address, family: 4 }];
    };
    const service = accounts({ perWorkspaceUrl: true, resolveHost, client: { maxRetries: 0 } });
    const url = 'https://mint.acme.example/api';
    expect(await service.checkBaseUrlAddress(url)).toEqual({ ok: true, value: url });
    await service.connect(TEAM_A, { apiKey: KEY_A, baseUrl: url }, { by: ADMIN });

    table['mint.acme.example'] = '10.0.0.5'; // the name's owner points it at a private address after the save
    const client = await service.forTeam(TEAM_A);
    for (let call = 1; call <= 6; call++) {
      const error = (await failure(client.createLink(link))) as MintApiError;
      expect(error.details).toMatchObject({ addressRefused: true });
      expect(mintErrorText(error, 'the mint link', 'created')).toBe(
        'The app did not connect to the Mint service: mint.acme.example resolves to 10.0.0.5, a private network address, and Mintlink sends a workspace’s key to public addresses only. An admin of this workspace can correct the Mint service base URL in Mintlink’s App Home (Replace key). Nothing was created.',
      );
    }
    // Each call looked the name up itself; the refusals are not an outage of the service (its circuit stays closed).
    expect(lookups).toEqual(Array(7).fill('mint.acme.example'));
    expect(client.status.circuit).toBe('closed');
    expect(await service.checkBaseUrlAddress(url)).toEqual({
      ok: false,
      problem:
        'mint.acme.example resolves to 10.0.0.5, a private network address: Mintlink sends your key to public addresses only. Enter the public URL of your Mint service.',
    });
    expect(await service.checkBaseUrlAddress('https://nowhere.acme.example')).toEqual({
      ok: false,
      problem: 'nowhere.acme.example has no address on the internet: check how it is spelled.',
    });
    // The operator's own URL (on this host, as in development) is used as it is, unchecked.
    await service.connect(TEAM_B, { apiKey: KEY_B }, { by: ADMIN });
    await (await service.forTeam(TEAM_B)).createLink(link);
    expect(mint.requestsTo('create_link')).toHaveLength(1);
  });

  it('shares one connection pool per origin, keeps a bounded number of clients, and closes what it drops', async () => {
    const service = accounts({ maxClients: 1 });
    await service.connect(TEAM_A, { apiKey: KEY_A }, { by: ADMIN });
    await service.connect(TEAM_B, { apiKey: KEY_B }, { by: ADMIN });
    const a = await service.forTeam(TEAM_A);
    expect(await service.forTeam(TEAM_A)).toBe(a); // made once, then kept
    expect(service.openPools).toBe(1);
    await (await service.forTeam(TEAM_B)).createLink(link); // A's client is dropped to keep one
    const again = await service.forTeam(TEAM_A);
    expect(again).not.toBe(a);
    await again.createLink(link);
    expect(mint.requestsTo('create_link').map((r) => r.headers['x-api-key'])).toEqual([KEY_B, KEY_A]);

    const both = accounts();
    await both.forTeam(TEAM_A);
    await both.forTeam(TEAM_B);
    expect(both.openPools).toBe(1);
    await both.remove(TEAM_A, { by: ADMIN });
    await both.remove(TEAM_B, { by: ADMIN });
    await vi.waitFor(() => expect(both.openPools).toBe(0));
  });
});
