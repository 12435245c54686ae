import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/platform/ops/config/load-config.js';

const distribution = {
  SLACK_SIGNING_SECRET: 'signing-SECRET-0123456789',
  SLACK_CLIENT_ID: '1111111111.2222222222',
  SLACK_CLIENT_SECRET: 'client-SECRET-0123456789abcdef',
  SLACK_STATE_SECRET: 'state-SECRET-0123456789abcdef0123456789',
  SECRETS_KEYS: randomBytes(32).toString('base64'),
  MINT_API_BASE_URL: 'https://mint.example.com/api',
};
const single = {
  SLACK_BOT_TOKEN: 'xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx',
  SLACK_SIGNING_SECRET: 'signing-SECRET-0123456789',
  MINT_API_BASE_URL: 'https://mint.example.com/api',
  MINT_API_KEY: 'mint-key-SECRET-abc',
};

describe('MINT_API_BASE_URL_PER_WORKSPACE', () => {
  it('is off unless set to true, in distribution mode', () => {
    const off = loadConfig(distribution);
    const on = loadConfig({ ...distribution, MINT_API_BASE_URL_PER_WORKSPACE: 'true' });
    expect(off.ok && off.config.mintBaseUrlPerWorkspace).toBe(false);
    expect(on.ok && on.config.mintBaseUrlPerWorkspace).toBe(true);
    const explicit = loadConfig({ ...single, MINT_API_BASE_URL_PER_WORKSPACE: 'false' });
    expect(explicit.ok && explicit.config.mintBaseUrlPerWorkspace).toBe(false);
  });

  it('is refused when it is not true or false, or has no effect (single-workspace mode)', () => {
    const wrong = loadConfig({ ...distribution, MINT_API_BASE_URL_PER_WORKSPACE: 'yes' });
    expect(wrong.ok ? '' : wrong.message).toContain('MINT_API_BASE_URL_PER_WORKSPACE must be true or false');
    const useless = loadConfig({ ...single, MINT_API_BASE_URL_PER_WORKSPACE: 'true' });
    expect(useless.ok ? '' : useless.message).toContain(
      'MINT_API_BASE_URL_PER_WORKSPACE has no effect in single-workspace mode',
    );
  });
});
