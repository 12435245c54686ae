import { Writable } from 'node:stream';
import { LogLevel } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { boltLogger } from '../../../../src/platform/ops/telemetry/bolt-logger.js';
import { createLogger } from '../../../../src/platform/ops/telemetry/create-logger.js';
import { createSecretScrubber } from '../../../../src/platform/ops/telemetry/secret-scrubber.js';
import { bold, codeBlock, escapeMrkdwn, inlineCode, italic } from '../../../../src/platform/blocks/mrkdwn.js';
import { MintApiError } from '../../../../src/platform/mint/mint-api-error.js';

const SECRETS = ['xoxb-not-a-real-token-abc', 'signing-secret-42abcdef', 'mint+key/with.special*chars'];

function capture(level: 'debug' | 'info' = 'debug') {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const logger = createLogger({ level, scrub: createSecretScrubber(SECRETS), pretty: false, destination });
  return { logger, lines, records: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('createSecretScrubber', () => {
  const scrub = createSecretScrubber(SECRETS);

  it('replaces every configured secret, special characters included', () => {
    expect(scrub(`a ${SECRETS[2]} b ${SECRETS[1]}${SECRETS[1]}`)).toBe('a [redacted] b [redacted][redacted]');
  });

  it('replaces anything shaped like a Slack token, configured or not', () => {
    expect(scrub('Authorization: Bearer xoxb-123-456-abcdef and xapp-1-A1-999999 and xoxp-11-22-33')).toBe(
      'Authorization: Bearer [redacted] and [redacted] and [redacted]',
    );
  });

  it("replaces a workflow execution's token (xwfp-), which the app is never configured with", () => {
    expect(scrub('"bot_access_token":"xwfp-7-0123456789abcdef0123"')).toBe('"bot_access_token":"[redacted]"');
    // By its key too, whatever its shape, also inside a JSON string logged as a field.
    const nested = JSON.stringify({ body: JSON.stringify({ event: { bot_access_token: 'tok.of-another-shape' } }) });
    expect(scrub(nested)).not.toContain('tok.of-another-shape');
    expect(scrub('{"bot_access_token": "opaque"}')).toBe('{"bot_access_token": "[redacted]"}');
  });

  it('finds a secret with quotes or backslashes in a JSON line, and any secret URL- or form-encoded', () => {
    const tricky = 'k"ey\\with/quote+and space';
    const scrubTricky = createSecretScrubber([tricky]);
    const line = JSON.stringify({ msg: `answer ${tricky}`, nested: JSON.stringify({ detail: tricky }) });
    expect(scrubTricky(line)).not.toContain('ey');
    expect(
      scrubTricky(new URLSearchParams({ text: tricky, blocks: JSON.stringify([{ text: tricky }]) }).toString()),
    ).not.toMatch(/ey|quote/);
    expect(scrubTricky(`q=${encodeURIComponent(tricky)}`)).toBe('q=[redacted]');
  });

  it('finds a secret as Slack text shows it: escaped, and inside bold, italic or code', () => {
    const secret = 'mk_live*<key>`&9f';
    const scrubShown = createSecretScrubber([secret]);
    for (const shown of [escapeMrkdwn(secret), bold(secret), italic(secret), inlineCode(secret), codeBlock(secret)]) {
      const body = new URLSearchParams({ blocks: JSON.stringify([{ text: shown }]) }).toString();
      expect(scrubShown(shown)).not.toMatch(/live|key/);
      expect(scrubShown(body)).not.toMatch(/live|key/);
    }
  });

  it('finds a secret whose letters and digits come in short runs only, in every spelling', () => {
    const choppy = 'a1-b2/c3+d4"e5';
    const scrubChoppy = createSecretScrubber([choppy]);
    expect(scrubChoppy(`x ${choppy} y`)).toBe('x [redacted] y');
    expect(scrubChoppy(JSON.stringify({ msg: choppy }))).toBe('{"msg":"[redacted]"}');
    expect(scrubChoppy(new URLSearchParams({ text: choppy }).toString())).toBe('text=[redacted]');
  });

  it('leaves other text alone and ignores values too short to be credentials', () => {
    expect(createSecretScrubber(['abc', ''])('abc abcd')).toBe('abc abcd');
  });
});

describe('createLogger', () => {
  it('writes one JSON object per line with level, time and message', () => {
    const { logger, records } = capture();
    logger.info({ user: 'U1' }, 'hello');
    expect(records()[0]).toMatchObject({
      level: 'info',
      service: 'mintlink',
      user: 'U1',
      msg: 'hello',
      time: expect.stringMatching(/Z$/),
    });
  });

  it('redacts secrets wherever they appear: fields, messages, errors', () => {
    const { logger, lines } = capture();
    logger.info({ token: 'anything', headers: { 'x-api-key': 'k', authorization: 'Bearer z' } }, 'by path');
    logger.warn({ note: `key is ${SECRETS[2]}` }, `token ${SECRETS[0]}`);
    logger.error({ err: new Error(`failed with ${SECRETS[1]}`) }, 'boom');
    const all = lines.join('\n');
    for (const secret of [...SECRETS, 'Bearer z']) expect(all).not.toContain(secret);
    expect(all.match(/\[redacted\]/g)?.length).toBeGreaterThanOrEqual(6);
  });

  it('logs an expected failure without its stack, a bug with it', () => {
    const { logger, records } = capture();
    logger.warn(
      { err: new MintApiError('timeout', 'The Mint service did not answer within 10 s.') },
      'could not list templates',
    );
    logger.error({ err: new Error('kaput') }, 'bug');
    const [expected, bug] = records();
    expect(expected?.err).toEqual({
      type: 'MintApiError',
      message: 'The Mint service did not answer within 10 s.',
      kind: 'timeout',
      details: {},
    });
    expect(bug?.err).toMatchObject({
      type: 'Error',
      message: 'kaput',
      stack: expect.stringContaining('logging.test.ts'),
    });
  });

  it('respects the level', () => {
    const { logger, lines } = capture('info');
    logger.debug('hidden');
    logger.info('shown');
    expect(lines).toHaveLength(1);
  });
});

describe('boltLogger', () => {
  it("adapts Bolt's logger interface, keeping errors as errors", () => {
    const { logger, records } = capture();
    const bolt = boltLogger(logger);
    bolt.setLevel(LogLevel.ERROR); // ignored: LOG_LEVEL decides
    bolt.setName('web-api:WebClient:0');
    bolt.debug('http request', { url: 'x' });
    bolt.error('An unhandled error occurred', new Error('kaput'));
    expect(bolt.getLevel()).toBe(LogLevel.DEBUG);
    const [debug, error] = records();
    expect(debug).toMatchObject({ level: 'debug', component: 'slack', msg: 'http request {"url":"x"}' });
    expect(error).toMatchObject({
      level: 'error',
      msg: 'An unhandled error occurred',
      err: { message: 'kaput', type: 'Error' },
    });
  });
});
