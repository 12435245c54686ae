import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/*
 * Every capability keeps one end-to-end test over HTTP and one over Socket Mode: the fast tier drives listeners
 * through Bolt's receiver in the test's process, so only these prove that a capability's requests arrive and are
 * answered over each transport. The check reads the text of the `*.e2e.test.ts` files under
 * test/capabilities/<capability>/ for a block run once per transport, written as every such file writes it:
 * `describe.each(['http', 'socket'] as const)` (or `it.each`).
 */
const root = new URL('../../', import.meta.url);
const BOTH_TRANSPORTS = /\b(?:describe|it)\.each\(\s*\[\s*'http',\s*'socket',?\s*\]/;

const capabilities = readdirSync(new URL('src/capabilities/', root), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

/** The capability's end-to-end files that run in both transports. */
function bothTransportFiles(capability: string): string[] {
  const folder = new URL(`test/capabilities/${capability}/`, root);
  let files: string[];
  try {
    files = readdirSync(folder).filter((name) => name.endsWith('.e2e.test.ts'));
  } catch {
    return []; // no test folder at all
  }
  return files.filter((name) => BOTH_TRANSPORTS.test(readFileSync(new URL(name, folder), 'utf8')));
}

describe('end-to-end coverage of the capabilities', () => {
  it('finds the capabilities', () => {
    expect(capabilities.length).toBeGreaterThan(0);
  });

  it.each(capabilities)('%s has an end-to-end test run over HTTP and over Socket Mode', (capability) => {
    expect(
      bothTransportFiles(capability),
      `test/capabilities/${capability}/ needs a *.e2e.test.ts with describe.each(['http', 'socket'] as const)`,
    ).not.toEqual([]);
  });
});
