import { execSync } from 'node:child_process';

/** End-to-end tests start `node dist/mintlink.mjs`, the bundle `npm start` runs: build it once first. */
export default function setup(): void {
  execSync('npm run build --silent', { stdio: 'inherit' });
}
