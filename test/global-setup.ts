import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';

/** End-to-end tests start `node dist/main.js`, the same artifact `npm start` runs: build it once first. */
export default function setup(): void {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { stdio: 'inherit' });
}
