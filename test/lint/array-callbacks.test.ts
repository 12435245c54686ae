import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/*
 * `ids.map(inlineCode)` once showed every customer ID as `…`: map hands its callback the index too, and
 * inlineCode took it for its maximum length. The lint refuses a function passed by reference to an array
 * method, everywhere in the code and the tests.
 */
describe('the lint of array callbacks', () => {
  const eslint = new ESLint({ cwd: new URL('../..', import.meta.url).pathname });

  it.each(['src/capabilities/links/link-views.ts', 'test/capabilities/links/link-views.test.ts'])(
    'refuses ids.map(inlineCode) in %s',
    async (file) => {
      const config = (await eslint.calculateConfigForFile(file)) as { rules?: Record<string, unknown[]> };
      expect(config.rules?.['unicorn/no-array-callback-reference']?.[0]).toBe(2); // 2: error
    },
  );
});
