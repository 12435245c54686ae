import { describe, expect, it } from 'vitest';
import { configSecrets } from '../../../../src/platform/ops/config/config.js';
import { configHints } from '../../../../src/platform/ops/config/config-schema.js';
import { loadConfig } from '../../../../src/platform/ops/config/load-config.js';

const valid = {
  SLACK_BOT_TOKEN: 'xoxb-1111-2222-abcdefSECRET',
  SLACK_SIGNING_SECRET: 'signing-SECRET-0123456789',
  MINT_API_BASE_URL: 'https://mint.example.com/api',
  MINT_API_KEY: 'mint-key-SECRET-abc',
};

function problems(env: Record<string, string>): string {
  const result = loadConfig(env);
  if (result.ok) throw new Error('expected a configuration problem');
  return result.message;
}

describe('loadConfig', () => {
  it('accepts the minimum for HTTP mode and fills the defaults', () => {
    const result = loadConfig(valid);
    expect(result).toMatchObject({
      ok: true,
      config: {
        mode: 'http',
        port: 3000,
        slack: { apiUrl: 'https://slack.com/api/', appToken: undefined },
        mint: { baseUrl: 'https://mint.example.com/api', timeoutMs: 10_000 },
        store: { engine: 'sqlite', path: 'data/mintlink.sqlite' },
        deletion: { approvalChannelId: undefined, approvers: { users: [], userGroups: [] }, requestTtlHours: 72 },
        maxWorkInFlight: 1000,
        bulk: { concurrency: 4, checkSlots: 2 },
        logLevel: 'info',
        metrics: { token: undefined, port: undefined, host: '0.0.0.0' },
      },
    });
    // No HOST: every interface, as the app has always listened (Node's default, IPv6 and IPv4).
    expect(result.ok && result.config.host).toBeUndefined();
  });

  it('reads HOST, the address PORT binds to in HTTP mode: an IP address or a host name', () => {
    for (const host of ['127.0.0.1', '::1', '0.0.0.0', 'app.internal']) {
      const result = loadConfig({ ...valid, HOST: host });
      expect(result.ok && result.config.host).toBe(host);
    }
  });

  it('refuses a HOST that is no address, and HOST in Socket Mode, where it could not apply', () => {
    const message = problems({ ...valid, HOST: 'http://0.0.0.0:3000' });
    expect(message).toMatch(/^Mintlink cannot start: 1 configuration problem\./);
    expect(message).toContain('  - HOST must be an IP address or a host name.');
    expect(message).toContain(`      Hint: ${configHints.HOST}`);
    expect(problems({ ...valid, HOST: '127.0.0.1', SLACK_APP_TOKEN: 'xapp-1-A0TEST-123-abcdef0123456789' })).toContain(
      '  - HOST has no effect in Socket Mode (its listener on PORT binds every interface): unset it.',
    );
  });

  it('runs in Socket Mode when an app token is set, without a signing secret', () => {
    const { SLACK_SIGNING_SECRET: _unused, ...env } = valid;
    const result = loadConfig({ ...env, SLACK_APP_TOKEN: 'xapp-1-A1-abc' });
    expect(result.ok && result.config.mode).toBe('socket');
  });

  it('lists every missing variable in one message, with hints', () => {
    const message = problems({});
    expect(message).toMatch(/^Mintlink cannot start: 4 configuration problems\./);
    for (const name of ['SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET', 'MINT_API_BASE_URL', 'MINT_API_KEY']) {
      expect(message).toContain(`- ${name} is not set`);
    }
    expect(message).toContain('Hint: Bot User OAuth Token');
    expect(message).toContain('.env.example');
  });

  it('reports every invalid value at once and never echoes a value', () => {
    const env = {
      SLACK_BOT_TOKEN: 'xoxp-user-token-SECRET1',
      SLACK_APP_TOKEN: 'bad-app-token-SECRET2',
      SLACK_API_URL: 'ftp://slack',
      PORT: '70000',
      MINT_API_BASE_URL: 'not a url SECRET3',
      MINT_API_KEY: 'key-SECRET4',
      MINT_API_TIMEOUT_MS: '12.5',
      DATABASE_URL: 'mysql://root:SECRET5@db/x',
      APPROVAL_CHANNEL_ID: 'general',
      DELETION_APPROVERS: 'U123ABC,bob',
      DELETION_REQUEST_TTL_HOURS: '0',
      LOG_LEVEL: 'verbose',
      BULK_CONCURRENCY: '0',
    };
    const message = problems(env);
    expect(message).toMatch(/^Mintlink cannot start: 12 configuration problems\./);
    expect(message).toContain('BULK_CONCURRENCY must be a whole number from 1 to 50');
    expect(message).toContain('SLACK_BOT_TOKEN must be a bot token starting with xoxb-');
    expect(message).toContain('SLACK_APP_TOKEN must be an app-level token starting with xapp-');
    expect(message).toContain('SLACK_API_URL must be an http(s) URL');
    expect(message).toContain('PORT must be a whole number from 1 to 65535');
    expect(message).toContain('MINT_API_BASE_URL must be an http(s) URL');
    expect(message).toContain('MINT_API_TIMEOUT_MS must be a whole number from 100 to 120000');
    expect(message).toContain('DATABASE_URL must start with postgres://, postgresql:// or file:');
    expect(message).toContain('APPROVAL_CHANNEL_ID must be a channel id');
    expect(message).toContain('DELETION_APPROVERS has "bob"');
    expect(message).toContain('DELETION_REQUEST_TTL_HOURS must be a whole number from 1 to 720');
    expect(message).toContain('LOG_LEVEL must be one of debug, info, warn, error');
    expect(message).not.toMatch(/SECRET/);
  });

  it('reads LOG_FORMAT: json, pretty, or unset (the app then looks whether stdout is a terminal)', () => {
    const format = (value?: string) => {
      const result = loadConfig({ ...valid, ...(value === undefined ? {} : { LOG_FORMAT: value }) });
      return result.ok ? result.config.logFormat : result.message;
    };
    expect(format('json')).toBe('json');
    expect(format('pretty')).toBe('pretty');
    expect(format()).toBeUndefined();
    expect(format('text')).toContain('LOG_FORMAT must be json or pretty');
  });

  it('reads BULK_CONCURRENCY and BULK_CHECK_SLOTS', () => {
    const result = loadConfig({ ...valid, BULK_CONCURRENCY: '12', BULK_CHECK_SLOTS: '3' });
    expect(result.ok && result.config.bulk).toMatchObject({ concurrency: 12, checkSlots: 3 });
    for (const wrong of ['0', '9', '1.5', 'two'])
      expect(problems({ ...valid, BULK_CHECK_SLOTS: wrong })).toContain(
        'BULK_CHECK_SLOTS must be a whole number from 1 to 8',
      );
    const least = loadConfig({ ...valid, MAX_WORK_IN_FLIGHT: '24', BULK_CONCURRENCY: '12' });
    expect(least.ok && [least.config.maxWorkInFlight, least.config.bulk.concurrency]).toEqual([24, 12]);
  });

  it('reads TEST_BULK_PACE_MS, the quicker bulk pace of a test app, unset in production', () => {
    const quick = loadConfig({ ...valid, TEST_BULK_PACE_MS: '200' });
    expect(quick.ok && quick.config.bulk).toMatchObject({
      testPaceMs: 200,
      pace: { progressGapMs: 200, progressTickMs: 50, workerPollMs: 100 },
    });
    const unset = loadConfig(valid);
    expect(unset.ok && unset.config.bulk.testPaceMs).toBeUndefined();
    expect(unset.ok && unset.config.bulk.pace).toEqual({
      progressGapMs: 2_000,
      progressTickMs: 500,
      workerPollMs: 1_000,
    });
    for (const wrong of ['10', '2001', '1.5', 'soon'])
      expect(problems({ ...valid, TEST_BULK_PACE_MS: wrong })).toContain(
        'TEST_BULK_PACE_MS must be a whole number from 20 to 2000',
      );
  });

  it('needs MAX_WORK_IN_FLIGHT to be at least twice BULK_CONCURRENCY, saying what would happen otherwise', () => {
    expect(problems({ ...valid, MAX_WORK_IN_FLIGHT: '6', BULK_CONCURRENCY: '4' })).toBe(
      [
        'Mintlink cannot start: 1 configuration problem.',
        '  - MAX_WORK_IN_FLIGHT is 6, below twice BULK_CONCURRENCY (4): bulk jobs leave 4 places to interactive requests and use the rest, so they would run 2 Mint calls at a time instead of 4; raise it to at least 8 or lower BULK_CONCURRENCY.',
        `      Hint: ${configHints.MAX_WORK_IN_FLIGHT}`,
        'Set these in the environment or in a .env file (see .env.example).',
      ].join('\n'),
    );
    // With the default BULK_CONCURRENCY (4), a budget of 4 or less would leave bulk jobs waiting for ever.
    expect(problems({ ...valid, MAX_WORK_IN_FLIGHT: '3' })).toContain(
      'MAX_WORK_IN_FLIGHT is 3, below twice BULK_CONCURRENCY (4): bulk jobs leave 4 places to interactive requests and use the rest, so they would never run;',
    );
    expect(problems({ ...valid, MAX_WORK_IN_FLIGHT: '1', BULK_CONCURRENCY: '1' })).toContain(
      'bulk jobs leave 1 place to interactive requests',
    );
    // Listed with the other problems in the one message.
    const message = problems({ ...valid, MINT_API_KEY: '', MAX_WORK_IN_FLIGHT: '10', BULK_CONCURRENCY: '6' });
    expect(message).toMatch(/^Mintlink cannot start: 2 configuration problems\./);
    expect(message).toContain('- MINT_API_KEY is not set');
    expect(message).toContain('- MAX_WORK_IN_FLIGHT is 10, below twice BULK_CONCURRENCY (6)');
    // A value that is wrong by itself is reported as such, without the comparison.
    expect(problems({ ...valid, MAX_WORK_IN_FLIGHT: 'many' })).toContain(
      '- MAX_WORK_IN_FLIGHT must be a whole number from 1 to 100000.',
    );
  });

  it('treats an empty value (NAME= in .env) as unset', () => {
    expect(problems({ ...valid, MINT_API_KEY: '  ' })).toContain('MINT_API_KEY is not set');
    const result = loadConfig({ ...valid, SLACK_APP_TOKEN: '', PORT: '' });
    expect(result.ok && [result.config.mode, result.config.port]).toEqual(['http', 3000]);
  });

  it('reads the store location, approvers and user groups', () => {
    const result = loadConfig({
      ...valid,
      SLACK_API_URL: 'https://slack-gov.com/api',
      DATABASE_URL: 'postgres://app:p%40ss@db.internal:5432/mint',
      DELETION_APPROVERS: ' U0AAA111, W0BBB222 ,S0CCC333',
      APPROVAL_CHANNEL_ID: 'C0APPROVE',
    });
    if (!result.ok) throw new Error(result.message);
    expect(result.config.slack.apiUrl).toBe('https://slack-gov.com/api/');
    expect(result.config.store).toEqual({ engine: 'postgres', url: 'postgres://app:p%40ss@db.internal:5432/mint' });
    expect(result.config.deletion.approvers).toEqual({ users: ['U0AAA111', 'W0BBB222'], userGroups: ['S0CCC333'] });
    expect(configSecrets(result.config)).toEqual(
      expect.arrayContaining([valid.SLACK_BOT_TOKEN, valid.MINT_API_KEY, valid.SLACK_SIGNING_SECRET, 'p@ss']),
    );
    const sqlite = loadConfig({ ...valid, DATABASE_URL: 'file:/var/lib/mintlink/db.sqlite' });
    expect(sqlite.ok && sqlite.config.store).toEqual({ engine: 'sqlite', path: '/var/lib/mintlink/db.sqlite' });
  });

  it('reads the /metrics token, port and address, and counts the token among the secrets', () => {
    const token = 'metrics-TOKEN-0123456789abcdef';
    const result = loadConfig({ ...valid, METRICS_TOKEN: token, METRICS_PORT: '9464', METRICS_HOST: '127.0.0.1' });
    if (!result.ok) throw new Error(result.message);
    expect(result.config.metrics).toEqual({ token, port: 9464, host: '127.0.0.1' });
    expect(configSecrets(result.config)).toContain(token);
    const hostName = loadConfig({ ...valid, METRICS_PORT: '9464', METRICS_HOST: 'metrics.internal' });
    expect(hostName.ok && hostName.config.metrics.host).toBe('metrics.internal');
    const ipv6 = loadConfig({ ...valid, METRICS_PORT: '9464', METRICS_HOST: '::' });
    expect(ipv6.ok && ipv6.config.metrics.host).toBe('::');
  });

  it('rejects a short or spaced /metrics token, a bad port or address, without echoing the token', () => {
    const message = problems({
      ...valid,
      METRICS_TOKEN: 'SECRET-short',
      METRICS_PORT: '99999',
      METRICS_HOST: 'not a host!',
    });
    expect(message).toMatch(/^Mintlink cannot start: 3 configuration problems\./);
    expect(message).toContain('METRICS_TOKEN must be at least 16 characters without spaces');
    expect(message).toContain('Hint: when set, GET /metrics needs the header "Authorization: Bearer <token>"');
    expect(message).toContain('METRICS_PORT must be a whole number from 1 to 65535');
    expect(message).toContain('METRICS_HOST must be an IP address or a host name');
    expect(message).not.toContain('SECRET');
    expect(problems({ ...valid, METRICS_TOKEN: 'SECRET with spaces inside it' })).toContain(
      'METRICS_TOKEN must be at least 16 characters without spaces',
    );
  });

  it('needs METRICS_PORT to differ from PORT, and METRICS_HOST to come with METRICS_PORT', () => {
    expect(problems({ ...valid, METRICS_PORT: '3000' })).toContain('METRICS_PORT must differ from PORT (3000)');
    expect(problems({ ...valid, PORT: '8080', METRICS_PORT: '8080' })).toContain(
      'METRICS_PORT must differ from PORT (8080)',
    );
    expect(problems({ ...valid, METRICS_HOST: '127.0.0.1' })).toContain(
      'METRICS_HOST has no effect without METRICS_PORT',
    );
  });
});
