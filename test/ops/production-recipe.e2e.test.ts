import { execFile, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify, stripVTControlCharacters } from 'node:util';
import type { Installation } from '@slack/bolt';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlInstallationStore } from '../../src/tenancy/installations/installation-store.js';
import { distributedManifest, httpManifest } from '../../src/operator/http-manifest.js';
import { parseSecretKey, SecretBox, type SecretKey } from '../../src/platform/secrets/secret-box.js';
import { openStore } from '../../src/platform/store/store.js';
import { useFakes } from '../kit/fakes.js';
import { freePort } from '../kit/free-port.js';
import { describeEachEngine } from '../kit/store-engines.js';
import {
  bareEnv,
  httpModeEnv,
  isAlive,
  NpmStart,
  npmRun,
  npmStartInTerminal,
  portIsFree,
  signedHelpCommand,
} from './npm-start.js';

/*
 * The production recipe of docs/operating.md, in a directory of its own: what a build stage holds after
 * `npm ci && npm run build` (package.json, package-lock.json, node_modules, dist/) is pruned to the production
 * dependencies with `npm prune --omit=dev`, and `npm start` and the operator's commands run from there: no
 * TypeScript, tsx, esbuild or any other dev tool is left, so nothing can be built at run time.
 */
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
const fakes = useFakes();
const dir = mkdtempSync(join(tmpdir(), 'mintlink-production-'));
let pruneOutput = '';
afterAll(() => rmSync(dir, { recursive: true, force: true }), 60_000);

/** The hidden lockfile npm keeps in node_modules; `npm prune` rewrites it in place (open, truncate, write). */
const HIDDEN_LOCKFILE = join('node_modules', '.package-lock.json');
const sha256 = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

beforeAll(async () => {
  for (const file of ['package.json', 'package-lock.json']) copyFileSync(join(repoRoot, file), join(dir, file));
  cpSync(join(repoRoot, 'dist'), join(dir, 'dist'), { recursive: true });
  // node_modules hard-linked, not copied (a copy of its 300 MB took most of this file's time): `npm prune` only
  // renames and unlinks entries of it, which leaves the repository's files alone, except the hidden lockfile,
  // which it rewrites in place: that one is a copy of its own, or the repository's would be rewritten too.
  await run('cp', ['-al', join(repoRoot, 'node_modules'), join(dir, 'node_modules')]);
  rmSync(join(dir, HIDDEN_LOCKFILE));
  copyFileSync(join(repoRoot, HIDDEN_LOCKFILE), join(dir, HIDDEN_LOCKFILE));
  const repositoryLockfile = sha256(join(repoRoot, HIDDEN_LOCKFILE));
  const prune = await run('npm', ['prune', '--omit=dev', '--no-audit', '--no-fund'], { cwd: dir, env: bareEnv() });
  pruneOutput = prune.stderr;
  // The prune did rewrite the copy, and not the repository's file through a shared link.
  expect(sha256(join(repoRoot, HIDDEN_LOCKFILE))).toBe(repositoryLockfile);
  expect(sha256(join(dir, HIDDEN_LOCKFILE))).not.toBe(repositoryLockfile);
}, 120_000);

/** Every file of dist/ with its size and modification time: what a rebuild would change. */
function distSnapshot(): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else files[relative(dir, path)] = `${statSync(path).size} ${statSync(path).mtimeMs}`;
    }
  };
  walk(join(dir, 'dist'));
  return files;
}

/**
 * What `npm run -s <script> -- <args>` runs once npm has started (`node dist/mintlink.mjs <script> <args>`), in
 * the production install: a command's further cases, each command being run through npm as documented at least
 * once for each exit code it has here. npm's own start is about a third of a short command's CPU.
 */
function scriptRun(
  script: string,
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('node', ['dist/mintlink.mjs', script, ...args], { cwd: dir, env }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** What a person sees of a command that failed: no Node stack trace, no npm noise. */
function expectNoStackTrace(output: string): void {
  expect(output).not.toMatch(/^\s+at /m);
  expect(output).not.toMatch(/node:internal|npm error|not found/);
}

/** The lines of npm start's output, as a person reads them (colour codes left out). */
const lines = (output: string) => stripVTControlCharacters(output).split(/\r?\n/);
const READABLE_STARTED = /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: mintlink started in HTTP mode/;
const READABLE_LINE = /^\[\d\d:\d\d:\d\d\.\d{3}\] [A-Z]+: /;

function expectJsonLines(output: string): void {
  const json = lines(output).filter((line) => line.startsWith('{'));
  const parsed = json.map((line) => JSON.parse(line) as { service?: string; msg?: string });
  expect(parsed.every((line) => line.service === 'mintlink')).toBe(true);
  expect(parsed.some((line) => line.msg?.startsWith('mintlink started in HTTP mode'))).toBe(true);
  expect(lines(output).filter((line) => READABLE_LINE.test(line))).toEqual([]);
}

function expectReadableLines(output: string): void {
  expect(lines(output).some((line) => READABLE_STARTED.test(line))).toBe(true);
  expect(lines(output).filter((line) => line.startsWith('{'))).toEqual([]);
}

/*
 * The tests are independent (each its own port, database and folders) and mostly wait on processes: they run
 * side by side, except the two groups at the end of the file. Side by side on a busy machine, a process takes
 * longer to start: the limits are wider, there only to catch a hang.
 */
const SIDE_BY_SIDE = { concurrent: true, timeout: 60_000 };
const PROCESS_WAIT_MS = 30_000;

describe('production recipe: build, prune to production dependencies, start', SIDE_BY_SIDE, () => {
  // One start serves the doctor too: before it, the database is missing; after it, nothing blocks.
  it('starts with production dependencies only, serves, logs JSON lines on a pipe, stops cleanly on SIGTERM; npm run -s doctor says the database is missing until then, and that nothing blocks after', async () => {
    // The install scripts that must run (better-sqlite3's native build) are declared in package.json.
    expect(pruneOutput).not.toMatch(/not yet covered by allowScripts/);
    for (const devTool of ['typescript', 'esbuild', 'tsx', 'vitest', '.bin/tsc', '.bin/esbuild', '.bin/tsx'])
      expect(existsSync(join(dir, 'node_modules', devTool)), devTool).toBe(false);
    expect(existsSync(join(dir, 'node_modules', 'better-sqlite3'))).toBe(true);

    const port = await freePort();
    const database = join(mkdtempSync(join(tmpdir(), 'mintlink-doctor-')), 'data', 'mintlink.sqlite');
    const env = {
      ...httpModeEnv(fakes, port, database),
      APPROVAL_CHANNEL_ID: 'C0APPROVE1',
      DELETION_APPROVERS: 'U0BOB0001,U0CAROL01',
    };
    const before = await scriptRun('doctor', [], env);
    expectNoStackTrace(before.stdout + before.stderr);
    expect(before.stdout).toContain(`✗ Database: ${database} does not exist`);
    expect(before.code).toBe(1);
    expect(existsSync(database)).toBe(false);

    // The app run once creates and migrates its database.
    const npm = new NpmStart(dir, env);
    await npm.waitForLog((line) => line.msg?.startsWith('mintlink started') === true, PROCESS_WAIT_MS);
    expect(npm.logs).not.toMatch(/tsc|esbuild|not found/);
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    const help = await signedHelpCommand(fakes, port);
    expect(help.status).toBe(200);
    expect(help.ack).toMatchObject({ response_type: 'ephemeral' });

    const app = npm.appProcess();
    npm.child.kill('SIGTERM');
    expect(await npm.waitForExit(PROCESS_WAIT_MS)).toEqual({ code: 0, signal: null });
    expect(npm.logLines.find((line) => line.msg === 'shutting down')).toMatchObject({ signal: 'SIGTERM' });
    expect(npm.logLines.some((line) => line.msg === 'stopped')).toBe(true);
    expect(isAlive(app.pid)).toBe(false);
    expect(await portIsFree(port)).toBe(true);
    expectJsonLines(npm.logs); // the log format on a pipe, LOG_FORMAT unset

    const after = await npmRun(dir, 'doctor', [], env);
    expect(after.stdout).toContain('): reachable, and every migration is applied');
    expect(after.stdout).toContain('Nothing blocks the setup.');
    expect(after.stderr).toBe('');
    expect(after.code).toBe(0);
  });
});

describe('npm run -s settings -- show, on the production install', SIDE_BY_SIDE, () => {
  it('with no configuration, names itself and lists what is missing, as the app does', async () => {
    const result = await npmRun(dir, 'settings', ['show'], bareEnv());
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    const [first, ...rest] = result.stderr.trimEnd().split('\n');
    expect(first).toBe('Mintlink settings show cannot run: 4 configuration problems.');
    expect(rest.join('\n')).toMatch(/- SLACK_BOT_TOKEN is not set[\s\S]*- MINT_API_KEY is not set/);
    expect(rest.at(-1)).toBe('Set these in the environment or in a .env file (see .env.example).');
    expect(result.stderr).not.toContain('Mintlink cannot start');
    expectNoStackTrace(result.stderr);
  });

  it('where the SQLite file does not exist yet: prints the defaults in force, and creates neither file nor folder', async () => {
    const folder = join(mkdtempSync(join(tmpdir(), 'mintlink-settings-')), 'data');
    const port = await freePort();
    const env = { ...httpModeEnv(fakes, port, join(folder, 'mintlink.sqlite')), DELETION_QUORUM: '2' };
    const result = await npmRun(dir, 'settings', ['show'], env);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      `The app has not used this database yet (no file at ${folder}/mintlink.sqlite): no settings were changed in Slack, and every value is the default from the environment.`,
    );
    expect(result.stdout).toMatch(/the quorum\s+2 approvals\s+\[env default: DELETION_QUORUM/);
    expect(existsSync(folder)).toBe(false);
  });

  describeEachEngine('on a database the app has never used', (engine, create) => {
    it('prints the defaults in force, says nothing was changed in Slack, and creates no table', async () => {
      const db = await create();
      const tables = async (): Promise<string[]> => {
        if (db.location.engine === 'sqlite') {
          const sqlite = new SQLite(db.location.path, { readonly: true });
          try {
            return sqlite
              .prepare<[], { name: string }>("select name from sqlite_master where type = 'table'")
              .all()
              .map((row) => row.name);
          } finally {
            sqlite.close();
          }
        }
        const client = new pg.Client({ connectionString: db.databaseUrl });
        await client.connect();
        try {
          const { rows } = await client.query<{ name: string }>(
            'select table_name as name from information_schema.tables where table_schema = current_schema()',
          );
          return rows.map((row) => row.name);
        } finally {
          await client.end();
        }
      };
      if (db.location.engine === 'sqlite') new SQLite(db.location.path).close(); // an empty database file
      const env = { ...httpModeEnv(fakes, await freePort(), 'unused'), DATABASE_URL: db.databaseUrl };
      const result = await scriptRun('settings', ['show'], env);
      expect(result.stderr, engine).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(
        'The app has not used this database yet (none of its tables exist): no settings were changed in Slack, and every value is the default from the environment.',
      );
      expect(result.stdout).toMatch(/the approval channel\s+none\s+\[env default: APPROVAL_CHANNEL_ID\]/);
      expect(result.stdout).not.toMatch(/no such table|does not exist/);
      expect(await tables()).toEqual([]);
    });
  });
});

describe('npm run -s secrets -- reseal, on the production install', SIDE_BY_SIDE, () => {
  const key = (): SecretKey => parseSecretKey(randomBytes(32).toString('base64')) as SecretKey;
  const installation = (teamId: string, token: string): Installation => ({
    team: { id: teamId, name: 'Acme' },
    enterprise: undefined,
    user: { id: 'U0INSTALL1', token: undefined, scopes: undefined },
    bot: { id: 'B0BOT00001', userId: 'U0BOT00001', token, scopes: ['commands', 'chat:write'] },
    appId: 'A0APP00001',
    tokenType: 'bot',
    isEnterpriseInstall: false,
    authVersion: 'v2',
  });

  it('seals the stored tokens again with the first key of SECRETS_KEYS, so the old key can be dropped', async () => {
    const databasePath = join(mkdtempSync(join(tmpdir(), 'mintlink-reseal-')), 'mintlink.sqlite');
    const store = openStore({ engine: 'sqlite', path: databasePath });
    const [oldKey, newKey] = [key(), key()];
    const quiet = pino({ level: 'silent' });
    const noRenewal = () => Promise.reject(new Error('no token is renewed in this test'));
    try {
      await store.migrate();
      await new SqlInstallationStore(store, new SecretBox([oldKey]), quiet, noRenewal).storeInstallation(
        installation('T0AAAAAAA1', 'xoxb-sealed-with-the-old-key'),
      );
      const env = {
        ...bareEnv(),
        SLACK_CLIENT_ID: '1234567890.1234567890',
        SLACK_CLIENT_SECRET: randomBytes(16).toString('hex'),
        SLACK_STATE_SECRET: randomBytes(32).toString('hex'),
        SLACK_SIGNING_SECRET: randomBytes(16).toString('hex'),
        SECRETS_KEYS: [newKey, oldKey].map((k) => k.bytes.toString('base64')).join(','),
        MINT_API_BASE_URL: 'https://mint.example.com',
        DATABASE_URL: `file:${databasePath}`,
      };
      const result = await npmRun(dir, 'secrets', ['reseal'], env);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(
        `Resealed 1 installation with key ${newKey.id}; 0 already were.\n` +
          `Resealed 0 Mint API keys with key ${newKey.id}; 0 already were.\n` +
          `Resealed 0 workflow step tokens with key ${newKey.id}; 0 already were.\n`,
      );
      const withNewKeyOnly = new SqlInstallationStore(store, new SecretBox([newKey]), quiet, noRenewal);
      const fetched = await withNewKeyOnly.fetchInstallation({
        teamId: 'T0AAAAAAA1',
        enterpriseId: undefined,
        isEnterpriseInstall: false,
      });
      expect(fetched.bot?.token).toBe('xoxb-sealed-with-the-old-key');
    } finally {
      await store.close();
    }
  });

  it('refuses a database that does not exist, or that the app never migrated: nothing created, nothing resealed', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'mintlink-reseal-'));
    const env = (databasePath: string) => ({
      ...bareEnv(),
      SLACK_CLIENT_ID: '1234567890.1234567890',
      SLACK_CLIENT_SECRET: randomBytes(16).toString('hex'),
      SLACK_STATE_SECRET: randomBytes(32).toString('hex'),
      SLACK_SIGNING_SECRET: randomBytes(16).toString('hex'),
      SECRETS_KEYS: key().bytes.toString('base64'),
      MINT_API_BASE_URL: 'https://mint.example.com',
      DATABASE_URL: `file:${databasePath}`,
    });
    const missing = join(folder, 'wrong-folder.sqlite');
    expect(await npmRun(dir, 'secrets', ['reseal'], env(missing))).toEqual({
      code: 1,
      stdout: '',
      stderr: `No database at ${missing}: nothing resealed. Run this where the app runs, with its DATABASE_URL (or .env).\n`,
    });
    expect(existsSync(missing)).toBe(false);

    const empty = join(folder, 'empty.sqlite');
    new SQLite(empty).close(); // the file, without one table
    expect(await scriptRun('secrets', ['reseal'], env(empty))).toEqual({
      code: 1,
      stdout: '',
      stderr: `The app has never run against ${empty} (no tables): nothing resealed. Run this where the app runs, with its DATABASE_URL (or .env).\n`,
    });
    const store = openStore({ engine: 'sqlite', path: empty });
    try {
      expect((await store.migrationState()).applied).toEqual([]);
    } finally {
      await store.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('the operator commands when the database cannot be used', SIDE_BY_SIDE, () => {
  it('say why in one line, without a stack trace', async () => {
    const port = await freePort(); // nothing listens there
    const env = {
      ...httpModeEnv(fakes, port, 'unused'),
      DATABASE_URL: `postgres://mintlink:db-password-1234@127.0.0.1:${port}/mintlink`,
      SECRETS_KEYS: randomBytes(32).toString('base64'),
    };
    const settings = await scriptRun('settings', ['show'], env);
    expect(settings).toEqual({
      code: 1,
      stdout: '',
      stderr: `Could not read the settings: the database cannot be used (nothing listens at 127.0.0.1:${port} (ECONNREFUSED)).\n`,
    });
    const reseal = await scriptRun('secrets', ['reseal'], env);
    expect(reseal).toEqual({
      code: 1,
      stdout: '',
      stderr: `Resealing stopped: the database cannot be used (nothing listens at 127.0.0.1:${port} (ECONNREFUSED)). Run it again once the database answers: what was resealed stays resealed.\n`,
    });
  });
});

describe('npm run -s manifest, on the production install', SIDE_BY_SIDE, () => {
  const manifestYaml = readFileSync(join(repoRoot, 'manifest.yml'), 'utf8');

  it('prints manifest.yml, which the install does not hold: it is built into the artifact', async () => {
    expect(existsSync(join(dir, 'manifest.yml'))).toBe(false);
    const result = await npmRun(dir, 'manifest', [], bareEnv());
    expect(result).toEqual({ code: 0, stdout: manifestYaml, stderr: '' });
  });

  it('prints the HTTP-mode manifest with --http, and the distribution-mode one with --distributed', async () => {
    const eventsUrl = 'https://mintlink.example.com/slack/events';
    const forHttp = await httpManifest(manifestYaml, eventsUrl);
    expect(await npmRun(dir, 'manifest', ['--http', 'https://mintlink.example.com'], bareEnv())).toEqual({
      code: 0,
      stdout: forHttp,
      stderr: '',
    });
    expect(await scriptRun('manifest', ['--http', 'https://mintlink.example.com', '--distributed'], bareEnv())).toEqual(
      { code: 0, stdout: await distributedManifest(forHttp, eventsUrl), stderr: '' },
    );
  });

  it('refuses a wrong argument with its usage, exit 2', async () => {
    const result = await npmRun(dir, 'manifest', ['--distributed'], bareEnv());
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^--distributed needs --http: installs need a public https URL\.\n\nUsage: /);
    expectNoStackTrace(result.stderr);
  });
});

describe('npm run -s doctor, on the production install', SIDE_BY_SIDE, () => {
  it('with no configuration lists what is missing, as the app does', async () => {
    const result = await npmRun(dir, 'doctor', [], bareEnv());
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('✗ Configuration: the app would not start: 4 configuration problems.');
    expect(result.stdout).toMatch(/- SLACK_BOT_TOKEN is not set[\s\S]*- MINT_API_KEY is not set/);
    expectNoStackTrace(result.stdout + result.stderr);
  });

  // The database missing until the app has run once, then nothing blocking: with the first test's start.
});

describe('node dist/mintlink.mjs with an argument', SIDE_BY_SIDE, () => {
  it('lists the operator commands for --help, and refuses an unknown one with that list, exit 2', async () => {
    const help = await run('node', ['dist/mintlink.mjs', '--help'], { cwd: dir, env: bareEnv() });
    expect(help.stdout).toMatch(/^Usage: node dist\/mintlink\.mjs \[command\]\n/);
    for (const command of ['settings', 'secrets', 'manifest', 'doctor'])
      expect(help.stdout).toContain(`npm run -s ${command} -- --help`);
    const unknown = await run('node', ['dist/mintlink.mjs', 'sttings'], { cwd: dir, env: bareEnv() }).catch(
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(unknown).toMatchObject({ code: 2, stdout: '' });
    expect(unknown.stderr).toBe(`Unknown command "sttings".\n\n${help.stdout}`);
  });
});

describe('the log format of npm start', SIDE_BY_SIDE, () => {
  /** npm start in a pseudo-terminal or on pipes; stopped as a process manager does once it has started. */
  async function startedOutput(terminal: boolean, logFormat: string | undefined): Promise<string> {
    const port = await freePort();
    const env = {
      ...httpModeEnv(fakes, port, join(dir, 'data', `log-${port}.sqlite`)),
      ...(terminal ? { TERM: 'xterm-256color' } : {}), // what a terminal emulator sets
      ...(logFormat ? { LOG_FORMAT: logFormat } : {}),
    };
    const npm = terminal ? npmStartInTerminal(dir, env) : new NpmStart(dir, env);
    await npm.waitForLine((line) => line.includes('mintlink started'), PROCESS_WAIT_MS);
    const app = npm.appProcess();
    process.kill(app.pid, 'SIGTERM');
    expect(await npm.waitForExit(PROCESS_WAIT_MS)).toEqual({ code: 0, signal: null });
    expect(isAlive(app.pid)).toBe(false);
    return npm.logs;
  }
  it('is readable lines, in colour, in a terminal', async () => {
    const output = await startedOutput(true, undefined);
    expectReadableLines(output);
    expect(output).toContain('\u001b[32mINFO\u001b[39m');
  });

  it('is JSON in a terminal with LOG_FORMAT=json', async () => {
    expectJsonLines(await startedOutput(true, 'json'));
  });

  // JSON on a pipe, LOG_FORMAT unset: the first test's start.
  it('is readable lines without colour codes on a pipe with LOG_FORMAT=pretty', async () => {
    const pretty = await startedOutput(false, 'pretty');
    expectReadableLines(pretty);
    expect(pretty).not.toContain('\u001b[');
  });
});

/* Once the tests above have ended: the start of mock-api is timed, so it runs with nothing beside it. */
describe('npm run mock-api, on the production install', () => {
  it('starts in about a second without building: dist/ is left as it is', async () => {
    const before = distSnapshot();
    const port = await freePort();
    const started = performance.now();
    const env = { ...bareEnv(), MOCK_PORT: String(port) };
    const mock = new NpmStart(dir, env, spawn('npm', ['run', 'mock-api'], { cwd: dir, env, stdio: 'pipe' }));
    await mock.waitForLine((line) => line.startsWith(`Mock Mint service on http://127.0.0.1:${port}`));
    // The target is under a second on a quiet machine; a build takes ten or more.
    expect(performance.now() - started).toBeLessThan(3_000);
    expect((await fetch(`http://127.0.0.1:${port}/__mock/requests`)).status).toBe(200);
    mock.child.kill('SIGTERM');
    expect(await mock.waitForExit()).toEqual({ code: 0, signal: null });
    expect(distSnapshot()).toEqual(before);
    expect(mock.logs).not.toMatch(/tsc|esbuild|not found/);
  });
});
