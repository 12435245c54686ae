import { resolve } from 'node:path';
import { bundleExists, launchApp, planApp } from './app-child.js';
import { ForeignDataDirError, SandboxRunningError } from './data-dir-lock.js';
import type { Sandbox } from './sandbox.js';

/*
 * `npm run sandbox`: the app, the mock Mint service and a Slack stand-in, with a page that shows a Slack
 * workspace on http://127.0.0.1:SANDBOX_PORT/. One Ctrl-C stops everything.
 *   SANDBOX_PORT (3300), SANDBOX_HOST (127.0.0.1), SANDBOX_DATA_DIR (./data/sandbox, emptied at each start; one sandbox at a time),
 *   SANDBOX_MINT_LATENCY_MS (0: the mock Mint service's default),
 *   SANDBOX_HISTORY_SCAN_ROWS (the app's HISTORY_SCAN_ROWS; a small one shows History's Keep searching).
 */

const started = performance.now();
const say = (line: string) => process.stdout.write(`${line}\n`);
function fail(line: string): never {
  process.stderr.write(`${line}\n`);
  process.exit(1);
}

const port = Number(process.env.SANDBOX_PORT ?? 3300);
if (!Number.isInteger(port) || port < 0 || port > 65535)
  fail(`SANDBOX_PORT must be a port number from 0 to 65535 (0 picks a free one); it is "${process.env.SANDBOX_PORT}".`);
const host = process.env.SANDBOX_HOST ?? '127.0.0.1';
const latency = process.env.SANDBOX_MINT_LATENCY_MS;
const mintLatencyMs = latency === undefined ? undefined : Number(latency);
if (mintLatencyMs !== undefined && (!Number.isInteger(mintLatencyMs) || mintLatencyMs < 0 || mintLatencyMs > 60_000))
  fail(`SANDBOX_MINT_LATENCY_MS must be a whole number of milliseconds from 0 to 60000; it is "${latency}".`);
const scanRows = process.env.SANDBOX_HISTORY_SCAN_ROWS;
const historyScanRows = scanRows === undefined ? undefined : Number(scanRows);
if (
  historyScanRows !== undefined &&
  (!Number.isInteger(historyScanRows) || historyScanRows < 1 || historyScanRows > 10_000_000)
)
  fail(`SANDBOX_HISTORY_SCAN_ROWS must be a whole number of rows from 1 to 10000000; it is "${scanRows}".`);
if (!bundleExists()) fail('dist/mintlink.mjs is missing: run `npm run build` first (after `npm ci`).');

// The app's own PORT is not the page's: someone who knows the app may try it here.
if (process.env.PORT)
  say(`Ignoring PORT: the page's port is SANDBOX_PORT (${port} now), and the sandbox picks the app's port itself.`);

// Names only, never values: the sandbox hands the app its own made-up tokens and a local Mint service.
const ignored = Object.keys(process.env)
  .filter((name) => /^(SLACK|MINT)_/.test(name) && process.env[name])
  .sort();
if (ignored.length > 0)
  say(
    `Ignoring ${ignored.join(', ')} from the environment: the sandbox never talks to real Slack or a real Mint ` +
      'service (it uses a local Slack stand-in, the mock Mint service and made-up tokens).',
  );

// Ctrl-C from the first moment: a signal with no handler would end this process at once and leave the app it
// launched running. Before the sandbox is ready, exiting is enough (the app is killed on exit, see launchApp).
const ready: { sandbox?: Sandbox } = {};
let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  say('Stopping the sandbox…');
  void (ready.sandbox?.stop() ?? Promise.resolve()).then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

const dataDir = resolve(process.env.SANDBOX_DATA_DIR ?? 'data/sandbox');
// The app first: its process starts while this one loads the rest of the sandbox (the stand-in, the mock, the page).
// Another sandbox on this data directory: one line, and nothing of it touched.
const plan = await planApp(dataDir, { historyScanRows }).catch((error: unknown) =>
  fail(
    error instanceof SandboxRunningError || error instanceof ForeignDataDirError
      ? error.message
      : `The sandbox could not start: ${(error as Error).message}`,
  ),
);
const launch = launchApp(plan);
const { PortInUseError, startSandbox } = await import('./sandbox.js');
const running = await startSandbox(
  { port, host, dataDir, ...(mintLatencyMs !== undefined ? { mintLatencyMs } : {}) },
  { plan, launch },
).catch((error: unknown) =>
  fail(error instanceof PortInUseError ? error.message : `The sandbox could not start: ${(error as Error).message}`),
);
ready.sandbox = running;
say(`Mintlink sandbox ready in ${Math.round(performance.now() - started)} ms: open ${running.url}`);
say(`The app's log: ${dataDir}/app.log. Ctrl-C stops everything.`);
