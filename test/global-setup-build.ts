import { execSync } from 'node:child_process';

/**
 * Builds dist/ once before a run with end-to-end files: they start `node dist/mintlink.mjs`, the bundle
 * `npm start` runs (or read dist/ otherwise). Vitest calls it only when the run has a file of the e2e project.
 * The build is esbuild's alone (about 2 s of CPU): type checking is `npm run typecheck`, a step of its own in CI.
 */
export default function setup(): void {
  execSync('npm run build --silent', { stdio: 'inherit' });
}
