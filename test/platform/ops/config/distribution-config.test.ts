import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { configSecrets } from '../../../../src/platform/ops/config/config.js';
import { loadConfig } from '../../../../src/platform/ops/config/load-config.js';

const KEY_NEW = randomBytes(32).toString('base64');
const KEY_OLD = randomBytes(32).toString('base64');

const distribution = {
  SLACK_SIGNING_SECRET: 'signing-SECRET-0123456789',
  SLACK_CLIENT_ID: '1111111111.2222222222',
  SLACK_CLIENT_SECRET: 'client-SECRET-0123456789abcdef',
  SLACK_STATE_SECRET: 'state-SECRET-0123456789abcdef0123456789',
  SECRETS_KEYS: `${KEY_NEW},${KEY_OLD}`,
  MINT_API_BASE_URL: 'https://mint.example.com/api',
};

function problems(env: Record<string, string | undefined>): string {
  const result = loadConfig(env);
  if (result.ok) throw new Error('expected a configuration problem');
  return result.message;
}

describe('distribution mode configuration', () => {
  it('refuses settings admins or settings from the environment: each workspace administers its own', () => {
    expect(problems({ ...distribution, SETTINGS_ADMINS: 'U0OPERATOR' })).toContain(
      "SETTINGS_ADMINS must be unset in distribution mode: it would let these people change every customer workspace's settings",
    );
    expect(problems({ ...distribution, SETTINGS_SOURCE: 'env' })).toContain(
      'SETTINGS_SOURCE must be slack (or unset) in distribution mode',
    );
  });

  it('needs no MINT_API_KEY, and refuses one: each workspace connects its own Mint account', () => {
    const result = loadConfig(distribution);
    if (!result.ok) throw new Error(result.message);
    expect(result.config.mint.apiKey).toBeUndefined();
    expect(problems({ ...distribution, MINT_API_KEY: 'mint-key-SECRET-abc' })).toContain(
      'MINT_API_KEY must be unset in distribution mode: each workspace connects its own Mint account in App Home',
    );
    const { SLACK_CLIENT_ID: _id, SLACK_CLIENT_SECRET: _secret, SLACK_STATE_SECRET: _state, ...single } = distribution;
    expect(problems({ ...single, SLACK_BOT_TOKEN: 'xoxb-1-2-abc' })).toContain('MINT_API_KEY is not set');
  });

  it('is on with the client id, client secret and state secret, without a bot token; keys newest first', () => {
    const result = loadConfig(distribution);
    if (!result.ok) throw new Error(result.message);
    expect(result.config.distribution).toEqual({
      clientId: '1111111111.2222222222',
      clientSecret: distribution.SLACK_CLIENT_SECRET,
      stateSecret: distribution.SLACK_STATE_SECRET,
    });
    expect(result.config.slack.botToken).toBeUndefined();
    expect(result.config.secretKeys.map((k) => k.bytes.toString('base64'))).toEqual([KEY_NEW, KEY_OLD]);
    const secrets = configSecrets(result.config);
    for (const secret of [distribution.SLACK_CLIENT_SECRET, distribution.SLACK_STATE_SECRET, KEY_NEW, KEY_OLD])
      expect(secrets).toContain(secret);
  });

  it('single-workspace mode stays the default: without the three variables the bot token is required', () => {
    const { SLACK_CLIENT_ID: _a, SLACK_CLIENT_SECRET: _b, SLACK_STATE_SECRET: _c, ...env } = distribution;
    expect(problems(env)).toContain('SLACK_BOT_TOKEN is not set');
    const single = loadConfig({
      ...env,
      SLACK_BOT_TOKEN: 'xoxb-1111-2222-abcdefSECRET',
      MINT_API_KEY: 'mint-key-SECRET-abc',
    });
    expect(single.ok && single.config.distribution).toBe(undefined);
  });

  it('names the missing ones when only some of the three are set', () => {
    const message = problems({ ...distribution, SLACK_STATE_SECRET: undefined });
    expect(message).toContain('SLACK_STATE_SECRET is not set, and distribution mode needs it');
  });

  it('refuses a bot token, an app token (Socket Mode) or no keys in distribution mode', () => {
    expect(problems({ ...distribution, SLACK_BOT_TOKEN: 'xoxb-1111-2222-abcdefSECRET' })).toContain(
      'SLACK_BOT_TOKEN must be unset in distribution mode',
    );
    expect(problems({ ...distribution, SLACK_APP_TOKEN: 'xapp-1-A111-2222-abcdef' })).toContain(
      'SLACK_APP_TOKEN must be unset in distribution mode',
    );
    expect(problems({ ...distribution, SECRETS_KEYS: undefined })).toContain('SECRETS_KEYS is not set');
  });

  it('says which key is wrong without echoing any, and refuses a short state secret', () => {
    const message = problems({
      ...distribution,
      SECRETS_KEYS: `${KEY_NEW},not-a-key`,
      SLACK_STATE_SECRET: 'short-state-secret-x',
    });
    expect(message).toContain('SECRETS_KEYS has a problem: key 2 is not the base64 of 32 bytes');
    expect(message).toContain('SLACK_STATE_SECRET must be at least 32 characters');
    expect(message).not.toContain(KEY_NEW);
    expect(message).not.toContain('short-state-secret-x');
    expect(problems({ ...distribution, SECRETS_KEYS: `${KEY_NEW},${KEY_NEW}` })).toContain('lists the same key twice');
  });
});
