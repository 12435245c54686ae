import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { describe, expect, it } from 'vitest';
import { isPlaceholderToken } from '../../../../src/platform/ops/config/config-schema.js';
import { loadConfig } from '../../../../src/platform/ops/config/load-config.js';

/** .env.example as the app reads it when copied to .env unchanged. */
const example = parseEnv(readFileSync(new URL('../../../../.env.example', import.meta.url), 'utf8')) as Record<
  string,
  string
>;

const REAL_BOT_TOKEN = 'xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx';
const REAL_APP_TOKEN = 'xapp-1-A0123456789-1234567890123-0123456789abcdef0123456789abcdef';

function problems(env: Record<string, string>): string {
  const result = loadConfig(env);
  if (result.ok) throw new Error('expected a configuration problem');
  return result.message;
}

describe('.env.example copied unchanged', () => {
  it('does not start: both Slack tokens are still placeholders, and nothing else is wrong', () => {
    const message = problems(example);
    expect(message).toMatch(/^Mintlink cannot start: 2 configuration problems\./);
    expect(message).toContain(
      '- SLACK_BOT_TOKEN is still the placeholder from .env.example: ' +
        'replace it with the Bot User OAuth Token (xoxb-...)',
    );
    expect(message).toContain(
      '- SLACK_APP_TOKEN is still the placeholder from .env.example: ' +
        'replace it with an App-Level Token (xapp-...) for Socket Mode, or leave it empty for HTTP mode',
    );
  });

  it('starts in Socket Mode once both tokens are filled in', () => {
    const result = loadConfig({ ...example, SLACK_BOT_TOKEN: REAL_BOT_TOKEN, SLACK_APP_TOKEN: REAL_APP_TOKEN });
    expect(result.ok && result.config.mode).toBe('socket');
  });

  it('starts in HTTP mode with the app token left empty and the signing secret set', () => {
    const result = loadConfig({
      ...example,
      SLACK_BOT_TOKEN: REAL_BOT_TOKEN,
      SLACK_APP_TOKEN: '',
      SLACK_SIGNING_SECRET: '8f14e45fceea167a5a36dedd4bea2543',
    });
    expect(result.ok && result.config.mode).toBe('http');
  });

  it('says in its comments which variables make which mode', () => {
    const comments = readFileSync(new URL('../../../../.env.example', import.meta.url), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('#'))
      .map((line) => line.replace(/^#\s*/, ''))
      .join(' ');
    expect(comments).toMatch(/Socket Mode \([^)]*\): set SLACK_APP_TOKEN/);
    expect(comments).toMatch(/HTTP mode \([^)]*\): leave SLACK_APP_TOKEN empty .* and set SLACK_SIGNING_SECRET/);
    expect(comments).toContain('npm run -s manifest -- --http https://YOUR-HOST');
  });
});

/** Distribution mode's variables replace SLACK_BOT_TOKEN (a mode of its own); .env.example only says where they come from. */
const DISTRIBUTION_MODE = ['SLACK_CLIENT_ID', 'SLACK_CLIENT_SECRET', 'SLACK_STATE_SECRET', 'SECRETS_KEYS'];

describe('every value of .env.example that is to be replaced', () => {
  const real = { SLACK_BOT_TOKEN: REAL_BOT_TOKEN, SLACK_APP_TOKEN: REAL_APP_TOKEN };
  /** .env.example with every commented-out variable switched on, as someone un-commenting them all would. */
  const uncommented = Object.fromEntries(
    Object.entries(
      parseEnv(
        readFileSync(new URL('../../../../.env.example', import.meta.url), 'utf8').replace(/^# ?([A-Z_]+=)/gm, '$1'),
      ) as Record<string, string>,
    ).filter(([name]) => !DISTRIBUTION_MODE.includes(name)),
  );

  it('refuses the example ids, each named, once the tokens are real', () => {
    const message = problems({ ...uncommented, ...real, METRICS_TOKEN: '8f14e45fceea167a5a36dedd4bea2543' });
    expect(message).toMatch(/^Mintlink cannot start: 4 configuration problems\./);
    expect(message).toContain('- APPROVAL_CHANNEL_ID is still the placeholder from .env.example');
    expect(message).toContain('- SETTINGS_ADMINS has "U0123456789", "S0123456789", still the placeholder');
    expect(message).toContain(
      '- DELETION_APPROVERS has "U0123456789", "S0123456789", still the placeholder from .env.example: put your own ids',
    );
    expect(message).toContain('- AUDIT_VIEWERS has "U0123456789", "S0123456789", still the placeholder');
  });

  it.each([
    ['SLACK_SIGNING_SECRET', 'your-signing-secret'],
    ['SLACK_SIGNING_SECRET', '<signing secret here>'],
    ['SLACK_SIGNING_SECRET', 'xxxxxxxxxxxxxxxx'],
    ['MINT_API_KEY', 'your-mint-api-key'],
    ['MINT_API_KEY', 'REPLACE_ME'],
    ['METRICS_TOKEN', 'your-metrics-bearer-token'],
  ])('refuses %s=%s as a placeholder, without echoing it', (name, value) => {
    const message = problems({ ...example, ...real, [name]: value });
    expect(message).toMatch(/^Mintlink cannot start: 1 configuration problem\./);
    expect(message).toContain(`- ${name} is still the placeholder from .env.example: replace it with`);
    expect(message).not.toContain(value);
  });

  it("takes real-looking secrets, and the mock service's key", () => {
    const result = loadConfig({
      ...example,
      ...real,
      SLACK_SIGNING_SECRET: '8f14e45fceea167a5a36dedd4bea2543',
      MINT_API_KEY: 'dev-key',
      METRICS_TOKEN: 'mt-3b9c1f0e7a2d4c6b8e0f',
    });
    expect(result.ok).toBe(true);
  });

  it("keeps its example database apart from the tests' one", () => {
    expect(uncommented.DATABASE_URL).toMatch(/^postgres:\/\//);
    expect(new URL(uncommented.DATABASE_URL ?? '').pathname).not.toBe('/test');
  });
});

describe('placeholder Slack tokens', () => {
  it.each([
    'xoxb-',
    'xoxb-your-bot-token',
    'xoxb-YOUR-BOT-TOKEN-HERE',
    'xoxb-...',
    'xoxb-…',
    'xoxb-xxxxxxxxxxxx-xxxxxxxxxxxxx-xxxxxxxxxxxxxxxxxxxxxxxx',
    'xoxb-<your bot token>',
    'xoxb-paste_the_token_here',
    'xoxb-changeme',
  ])('bot token %j is refused as the placeholder, and never echoed', (token) => {
    const message = problems({ ...example, SLACK_BOT_TOKEN: token, SLACK_APP_TOKEN: REAL_APP_TOKEN });
    expect(message).toMatch(/^Mintlink cannot start: 1 configuration problem\./);
    expect(message).toContain('- SLACK_BOT_TOKEN is still the placeholder from .env.example: replace it with');
    if (!['xoxb-', 'xoxb-...'].includes(token)) expect(message).not.toContain(token); // those two are in the hint
  });

  it.each(['xapp-', 'xapp-your-app-level-token', 'xapp-1-xxxx', 'xapp-...', 'xapp-<app-level token>'])(
    'app token %j is refused as the placeholder',
    (token) => {
      const message = problems({ ...example, SLACK_BOT_TOKEN: REAL_BOT_TOKEN, SLACK_APP_TOKEN: token });
      expect(message).toMatch(/^Mintlink cannot start: 1 configuration problem\./);
      expect(message).toContain('- SLACK_APP_TOKEN is still the placeholder from .env.example');
      expect(message).toContain('or leave it empty for HTTP mode');
    },
  );

  it.each([
    REAL_BOT_TOKEN,
    'xoxb-test-bot-token-0000000000',
    'xoxb-revoked-token-000000',
    'xoxb-1111-2222-abcdefSECRET',
    'xoxb-123-456-abcdef',
  ])('a real-looking bot token %j is not a placeholder', (token) => {
    expect(isPlaceholderToken(token, 'xoxb-')).toBe(false);
    expect(loadConfig({ ...example, SLACK_BOT_TOKEN: token, SLACK_APP_TOKEN: REAL_APP_TOKEN }).ok).toBe(true);
  });

  it.each([REAL_APP_TOKEN, 'xapp-1-A1-abc', 'xapp-1-revoked-000000', 'xapp-1-A0TEST001-test-app-token-0000'])(
    'a real-looking app token %j is not a placeholder',
    (token) => {
      expect(isPlaceholderToken(token, 'xapp-')).toBe(false);
      expect(loadConfig({ ...example, SLACK_BOT_TOKEN: REAL_BOT_TOKEN, SLACK_APP_TOKEN: token }).ok).toBe(true);
    },
  );

  it('keeps the other shape errors for tokens of the wrong kind', () => {
    const message = problems({ ...example, SLACK_BOT_TOKEN: 'xoxp-user-token', SLACK_APP_TOKEN: 'xoxb-' });
    expect(message).toContain('SLACK_BOT_TOKEN must be a bot token starting with xoxb-');
    expect(message).toContain('SLACK_APP_TOKEN must be an app-level token starting with xapp-');
  });
});
