import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  MintCallRecorder,
  SAME_OUTCOME_WRITE_MS,
  mintKeyId,
} from '../../../src/tenancy/mint-accounts/mint-call-recorder.js';
import type { StoredMintCallOutcome } from '../../../src/platform/store/mint-call-outcomes.js';
import { testLogger } from '../../kit/test-logger.js';

describe('the record of the Mint service’s last answer', () => {
  it('writes when the outcome or the key changes, and otherwise at most once a minute per account', async () => {
    const written: StoredMintCallOutcome[] = [];
    let now = 1_000_000;
    const recorder = new MintCallRecorder(
      { save: async (outcome) => void written.push(outcome) },
      testLogger('warn', (text) => text),
      'id-key',
      () => now,
    );
    const operator = recorder.forAccount('', 'key-one-abcdef');
    for (let i = 0; i < 50; i += 1) operator('accepted', 201); // a busy minute: one write
    expect(written.map((w) => w.outcome)).toEqual(['accepted']);
    operator('refused', 401); // a change: written at once
    operator('refused', 401);
    now += SAME_OUTCOME_WRITE_MS - 1;
    operator('refused', 401);
    expect(written.map((w) => w.outcome)).toEqual(['accepted', 'refused']);
    now += 1; // a minute after the last write: its time moves on
    operator('refused', 403);
    recorder.forAccount('', 'key-two-123456')('refused', 401); // another key: written at once
    recorder.forAccount('T0OTHER01', 'key-one-abcdef')('accepted', 200); // another account keeps its own
    await recorder.flush();
    expect(written.map((w) => [w.account, w.outcome, w.status])).toEqual([
      ['', 'accepted', 201],
      ['', 'refused', 401],
      ['', 'refused', 403],
      ['', 'refused', 401],
      ['T0OTHER01', 'accepted', 200],
    ]);
    expect(written[3]?.keyId).toBe(mintKeyId('key-two-123456', 'id-key'));
    expect(JSON.stringify(written)).not.toContain('key-one-abcdef'); // a digest names the key, never the key
  });

  it('tries again at the next call when a write failed', async () => {
    let fail = true;
    const written: string[] = [];
    let logs = '';
    const recorder = new MintCallRecorder(
      {
        save: async (outcome) => {
          if (fail) throw new Error('database away');
          written.push(outcome.outcome);
        },
      },
      testLogger(
        'warn',
        (text) => text,
        (line) => (logs += line),
      ),
      'id-key',
    );
    const record = recorder.forAccount('', 'some-key-000000');
    record('accepted', 201);
    await recorder.flush();
    fail = false;
    record('accepted', 201);
    await recorder.flush();
    expect(written).toEqual(['accepted']);
    expect(logs).toContain('could not record how the Mint service answered');
  });

  it('names a key by an HMAC under the app’s own secret, never its plain SHA-256', () => {
    const key = 'mint-key-0123456789';
    const plain = createHash('sha256').update(key).digest('hex').slice(0, 16);
    expect(mintKeyId(key, 'secret-a')).not.toBe(plain);
    expect(mintKeyId(key, 'secret-a')).not.toBe(mintKeyId(key, 'secret-b'));
    expect(mintKeyId(key, 'secret-a')).toMatch(/^[0-9a-f]{16}$/);
  });
});
