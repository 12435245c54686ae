import { describe, expect, it } from 'vitest';
import { rowDisposition } from '../../../src/capabilities/bulk/row-disposition.js';
import { MintApiError } from '../../../src/platform/mint/mint-api-error.js';

const answered = (kind: MintApiError['kind'], status: number, retryAfterSeconds?: number) =>
  new MintApiError(kind, `answered ${status}`, {
    status,
    ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
  });

describe('rowDisposition', () => {
  it('sends again only what never left the app, or what the service said to send later (429, 503 with Retry-After)', () => {
    const notSent = [
      new MintApiError('rate_limited', 'wait', { retryAfterSeconds: 3, outcomeUnknown: false }),
      new MintApiError('unavailable', 'circuit open', { outcomeUnknown: false }),
      new MintApiError('network', 'ECONNREFUSED', { outcomeUnknown: false }),
      answered('rate_limited', 429),
      answered('rate_limited', 429, 2),
      answered('unavailable', 503, 5),
    ];
    for (const error of notSent) expect(rowDisposition(error)).toEqual({ kind: 'again' });
  });

  it('never sends again what may have been done: a proxy may answer 408, 502, 503 or 504 after forwarding; a 500 is a failure part-way', () => {
    for (const error of [
      new MintApiError('timeout', 'no answer', { outcomeUnknown: true }),
      new MintApiError('network', 'ECONNRESET', { outcomeUnknown: true }),
      new MintApiError('bad_response', 'not JSON', { status: 201, outcomeUnknown: true }),
      answered('timeout', 408),
      answered('unavailable', 500),
      answered('unavailable', 502),
      answered('unavailable', 503),
      answered('unavailable', 504),
      new Error('a bug after the call'),
    ]) {
      expect(rowDisposition(error).kind).toBe('unknown');
    }
    expect(rowDisposition(answered('unavailable', 500))).toEqual({ kind: 'unknown', error: 'answered 500' });
  });

  it('records refusals as failed, and pauses the job on refused credentials', () => {
    expect(rowDisposition(answered('rejected', 400))).toEqual({ kind: 'failed', error: 'answered 400' });
    expect(rowDisposition(answered('not_found', 404)).kind).toBe('failed');
    expect(rowDisposition(answered('rejected', 409)).kind).toBe('failed');
    expect(rowDisposition(new MintApiError('rejected', 'Not sent: email must be an email')).kind).toBe('failed');
    expect(rowDisposition(answered('unauthorized', 401))).toMatchObject({
      kind: 'pause',
      reason: expect.stringContaining('MINT_API_KEY'),
    });
  });
});
