import { describe, expect, it } from 'vitest';
import { OnceOnlyStateStore, STATE_TTL_SECONDS } from '../../../src/tenancy/installations/oauth-state.js';
import { openStore } from '../../../src/platform/store/store.js';
import { sqliteDatabase } from '../../kit/store-engines.js';

const SECRET = 'state-secret-0123456789abcdef0123456789';

describe('what is wrong with an OAuth state (for the page of a refused install)', () => {
  it('tells forged and expired states from current ones, without using a state up', async () => {
    const store = openStore(sqliteDatabase().location);
    await store.migrate();
    try {
      const states = new OnceOnlyStateStore(SECRET, store.onceKeys);
      const options = { scopes: ['commands'] };

      const current = await states.generateStateParam(options, new Date());
      expect(states.flaw(current)).toBeUndefined();
      expect(states.flaw(current)).toBeUndefined();
      expect(await states.verifyStateParam(new Date(), current)).toEqual(options); // still usable once
      expect(states.flaw(current)).toBeUndefined(); // used: Bolt's own check says so, not the signature or age

      const old = await states.generateStateParam(options, new Date(Date.now() - (STATE_TTL_SECONDS + 1) * 1000));
      expect(states.flaw(old)).toBe('expired');
      const fromTheFuture = await states.generateStateParam(options, new Date(Date.now() + 5 * 60_000));
      expect(states.flaw(fromTheFuture)).toBe('expired');

      const foreign = await new OnceOnlyStateStore(`${SECRET}x`, store.onceKeys).generateStateParam(
        options,
        new Date(),
      );
      expect(states.flaw(foreign)).toBe('forged');
      for (const garbage of ['', '.', 'no-dot', `${current.split('.')[0]}.`, `.${current.split('.')[1]}`])
        expect(states.flaw(garbage)).toBe('forged');
    } finally {
      await store.close();
    }
  });
});
