import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { BOT_SCOPES } from '../../../src/tenancy/installations/bot-scopes.js';
import {
  OAuthStateError,
  OnceOnlyStateStore,
  STATE_TTL_SECONDS,
} from '../../../src/tenancy/installations/oauth-state.js';
import { openStore } from '../../../src/platform/store/store.js';
import { sqliteDatabase } from '../../kit/store-engines.js';

describe('the OAuth state', () => {
  async function stateStore() {
    const store = openStore(sqliteDatabase().location);
    await store.migrate();
    return { store, states: new OnceOnlyStateStore('state-secret-0123456789abcdef0123456789', store.onceKeys) };
  }

  it('carries the install options, works once, and not after STATE_TTL_SECONDS', async () => {
    const { store, states } = await stateStore();
    const options = { scopes: ['commands'], metadata: 'm' };
    const state = await states.generateStateParam(options, new Date());
    expect(await states.verifyStateParam(new Date(), state)).toEqual(options);
    await expect(states.verifyStateParam(new Date(), state)).rejects.toMatchObject({ reason: 'reused' });

    const old = await states.generateStateParam(options, new Date(Date.now() - (STATE_TTL_SECONDS + 1) * 1000));
    await expect(states.verifyStateParam(new Date(), old)).rejects.toMatchObject({ reason: 'expired' });
    await store.close();
  });

  it('refuses a state signed with another secret, or altered', async () => {
    const { store, states } = await stateStore();
    const other = new OnceOnlyStateStore('another-secret-0123456789abcdef01234567', store.onceKeys);
    const foreign = await other.generateStateParam({ scopes: [] }, new Date());
    await expect(states.verifyStateParam(new Date(), foreign)).rejects.toBeInstanceOf(OAuthStateError);
    const mine = await states.generateStateParam({ scopes: [] }, new Date());
    const [body, signature] = mine.split('.');
    const altered = `${Buffer.from(JSON.stringify({ o: { scopes: ['admin'] }, t: Date.now(), n: 'x' })).toString('base64url')}.${signature}`;
    expect(body).not.toBe(altered.split('.')[0]);
    await expect(states.verifyStateParam(new Date(), altered)).rejects.toMatchObject({ reason: 'forged' });
    await store.close();
  });
});

describe('the bot scopes asked at install', () => {
  it('are manifest.yml’s', () => {
    const manifest = parse(readFileSync(new URL('../../../manifest.yml', import.meta.url), 'utf8')) as {
      oauth_config: { scopes: { bot: string[] } };
    };
    expect([...BOT_SCOPES].sort()).toEqual([...manifest.oauth_config.scopes.bot].sort());
  });
});
