/*
 * `npm run bench -- --distribution`: the app in distribution mode, installed in BENCH_WORKSPACES workspaces
 * (default 1,000) on PostgreSQL, as BENCH_REPLICAS replicas (default 3) sharing one database, with signed
 * commands from BENCH_ACTIVE_WORKSPACES of them (default 100) spread round-robin over the replicas; against
 * the same number of replicas of the single-workspace app (SLACK_BOT_TOKEN) on PostgreSQL, given the same load
 * from as many users of its one workspace, in the same run and in alternating order. Then: how often
 * authorizing a request read the installations table (PostgreSQL's own counters), and how long an uninstall
 * sent to one replica takes to reach the others. The fake Slack and the mock Mint service run in a process of
 * their own (fixtures.ts), as for `npm run bench`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { pino } from 'pino';
import { Pool } from 'undici';
import { SqlInstallationStore } from '../../src/tenancy/installations/installation-store.js';
import { mintKeySealContext } from '../../src/tenancy/mint-accounts/mint-accounts.js';
import { lastFour } from '../../src/tenancy/mint-accounts/mint-key.js';
import { DEMO_CONTRACT_ID } from '../../src/operator/mock-mint-api/demo-templates.js';
import { parseSecretKey, SecretBox } from '../../src/platform/secrets/secret-box.js';
import { openStore, type Store } from '../../src/platform/store/store.js';
import { TEST_MINT_API_KEY, TEST_SIGNING_SECRET, startArguments } from '../kit/app-process.js';
import type { BenchArrival } from '../kit/fake-slack.js';
import { freePort } from '../kit/free-port.js';
import { TEST_APP_ID, TEST_TEAM_ID } from '../kit/slack-ids.js';
import { eventCallback, formBody, inTeam, slashCommand, type SlackUrls } from '../kit/slack-payloads.js';
import { slackSignatureHeaders } from '../kit/slack-signature.js';
import type { BenchWorkspace } from './bench-workspaces.js';
import { type Load, benchFolder, drive, firstLine, list, sleep, stopProcess } from './bench-kit.js';

const DATABASE_URL =
  process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const WORKSPACES = Number(process.env.BENCH_WORKSPACES ?? 1_000);
const ACTIVE = Number(process.env.BENCH_ACTIVE_WORKSPACES ?? 100);
const REPLICAS = Number(process.env.BENCH_REPLICAS ?? 3);
const CONCURRENCIES = list(process.env.BENCH_CONCURRENCIES, '10,50').map(Number);
const FIXED_RATES = list(process.env.BENCH_RATES, '100,300').map(Number);
const COMMANDS = Number(process.env.BENCH_COMMANDS ?? 600);
/** A fixed-rate round lasts a few periods of the replicas' check of their kept installations. */
const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 5_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const LOGS = Boolean(process.env.BENCH_LOGS && process.env.BENCH_LOGS !== '0');
const PROFILE = Boolean(process.env.BENCH_PROFILE && process.env.BENCH_PROFILE !== '0');
const MINT_LATENCY_MS = 1_000;
/** Slack gives up on an ack after 3 s; the load generator after this (counted as an error). */
const ACK_TIMEOUT_MS = 10_000;
/** After a round's last ack, results are awaited until all came, none came for QUIET_MS, or RESULTS_MAX_MS passed. */
const QUIET_MS = 2_000;
const RESULTS_MAX_MS = 15_000;
/**
 * PostgreSQL 15 publishes a backend's table counters when its transaction ends, but at most once a second;
 * what is left waits until the backend has been idle for 10 s (PGSTAT_IDLE_INTERVAL). The counters are read
 * after that long without load, so every read the replicas made is in them.
 */
const PG_STATS_SETTLE_MS = 11_000;
/** How long the uninstall's reach is watched for before it counts as not reached. */
const UNINSTALL_WATCH_MS = 15_000;

const TARGETS = { tolerance: 1.1, uninstallReachMs: 1_000 };
/** How long the replicas are left without requests while their reads of the database are counted. */
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 60_000);

const SCENARIOS = {
  templates: { text: `templates ${DEMO_CONTRACT_ID} 10`, result: 'in_channel' },
  'modal open': { text: '', result: 'views.open' },
  /** Only acks: the app's fixed cost per request, authorization included. */
  help: { text: 'help', result: undefined },
} as const satisfies Record<string, { text: string; result: BenchArrival['kind'] | undefined }>;
type Scenario = keyof typeof SCENARIOS;

/** The Slack app as registered for distribution (the fake's OAuth is not used: installations are seeded). */
const CLIENT = {
  SLACK_CLIENT_ID: '1111111111.2222222222',
  SLACK_CLIENT_SECRET: 'client-secret-bench-5c1e9a7d3b',
  SLACK_STATE_SECRET: 'state-secret-bench-0123456789abcdef0123456789',
  appId: 'A0DIST0001',
  scopes: 'commands,chat:write,usergroups:read,users:read,channels:read,groups:read,files:read,files:write',
};

interface Fixtures {
  slackUrl: string;
  apiUrl: string;
  botToken: string;
  mintUrl: string;
  workspaces: BenchWorkspace[];
}

interface Replica {
  child: ChildProcess;
  pool: Pool;
  base: string;
  startMs: number;
}

type ModeName = 'distribution' | 'single-workspace';

/** One deployment under test: its replicas, who sends its commands, and where the round-robin stands. */
interface Deployment {
  name: ModeName;
  replicas: Replica[];
  /** Who sends the commands, in turn: a user of each active workspace, or as many users of the one workspace. */
  senders: Array<{ teamId: string; userId: string }>;
  schema: string;
  sent: number;
  /**
   * Distribution mode: when each replica first read each workspace's installation (the first command from it
   * that replica got), to tell the acks that waited for a read apart.
   */
  readAt?: Map<string, number>;
}

interface Stats {
  acks: number[];
  /** Distribution mode: the acks of commands that (by the load generator's reckoning) read their installation. */
  readAcks: number[];
  /** Not answered 200 in time. */
  errors: number;
  busy: number;
  sendMs: number;
  expected: number;
  delivered: number;
  /** Resident memory after the round: the largest replica's, and all replicas' together (the highest seen). */
  rssMaxMb: number;
  rssSumMb: number;
  /** CPU milliseconds of all replicas together during the round, result delivery included. */
  cpuMs: number;
}

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export async function runDistributionBench(): Promise<void> {
  const benchStarted = performance.now();
  const progress = (text: string) =>
    process.stderr.write(`[distribution bench ${((performance.now() - benchStarted) / 1000).toFixed(0)} s] ${text}\n`);
  const scenarios = list(process.env.BENCH_SCENARIOS, 'modal open,help') as Scenario[];
  for (const s of scenarios)
    if (!(s in SCENARIOS)) throw new Error(`unknown scenario ${s}: one of ${Object.keys(SCENARIOS).join(', ')}`);
  if (ACTIVE > WORKSPACES) throw new Error('BENCH_ACTIVE_WORKSPACES is more than BENCH_WORKSPACES');

  const fixturesProcess = spawn(process.execPath, ['--import', 'tsx', here('./fixtures.ts')], {
    env: { ...process.env, MINT_LATENCY_MS: String(MINT_LATENCY_MS), BENCH_WORKSPACES: String(WORKSPACES) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  process.once('exit', () => fixturesProcess.kill('SIGKILL'));
  const fixtures = JSON.parse(await firstLine(fixturesProcess)) as Fixtures;

  // Each deployment its own schema of the test database, dropped at the end (named here in case the run is cut).
  const run = randomUUID().replace(/-/g, '').slice(0, 10);
  const schemas = { distribution: `mintlink_bench_${run}_dist`, single: `mintlink_bench_${run}_single` };
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  for (const schema of Object.values(schemas)) await admin.query(`create schema ${schema}`);
  progress(`schemas ${Object.values(schemas).join(', ')} created`);
  const deployments: Deployment[] = [];
  const cwd = benchFolder('mintlink-distribution-bench-', LOGS || PROFILE);
  try {
    const secretsKeys = randomBytes(32).toString('base64');
    const seedStarted = performance.now();
    await seed(urlWithSchema(schemas.distribution), secretsKeys, fixtures.workspaces);
    await migrateOnly(urlWithSchema(schemas.single));
    progress(`${WORKSPACES} installations seeded in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);

    if (LOGS) progress(`replicas' logs in ${cwd}`);
    const common = {
      PATH: process.env.PATH ?? '',
      SLACK_SIGNING_SECRET: TEST_SIGNING_SECRET,
      SLACK_API_URL: fixtures.apiUrl,
      MINT_API_BASE_URL: fixtures.mintUrl,
      LOG_LEVEL: 'info',
    };
    const distribution: Deployment = {
      name: 'distribution',
      replicas: await startReplicas('distribution', cwd, {
        ...common,
        SLACK_CLIENT_ID: CLIENT.SLACK_CLIENT_ID,
        SLACK_CLIENT_SECRET: CLIENT.SLACK_CLIENT_SECRET,
        SLACK_STATE_SECRET: CLIENT.SLACK_STATE_SECRET,
        SECRETS_KEYS: secretsKeys,
        DATABASE_URL: urlWithSchema(schemas.distribution),
      }),
      senders: fixtures.workspaces.slice(0, ACTIVE).map((w) => ({ teamId: w.teamId, userId: w.userId })),
      schema: schemas.distribution,
      sent: 0,
      readAt: new Map(),
    };
    deployments.push(distribution);
    const single: Deployment = {
      name: 'single-workspace',
      replicas: await startReplicas('single-workspace', cwd, {
        ...common,
        SLACK_BOT_TOKEN: fixtures.botToken,
        MINT_API_KEY: TEST_MINT_API_KEY,
        DATABASE_URL: urlWithSchema(schemas.single),
      }),
      // As many senders as the distribution side has workspaces: the same spread of users, in one workspace.
      senders: Array.from({ length: ACTIVE }, (_, i) => ({
        teamId: TEST_TEAM_ID,
        userId: `USW${String(i + 1).padStart(6, '0')}`,
      })),
      schema: schemas.single,
      sent: 0,
    };
    deployments.push(single);
    progress(`${REPLICAS} + ${REPLICAS} replicas ready`);

    const bench = new Bench(fixtures);
    // Warm-up, not counted: each deployment once per scenario.
    for (const scenario of scenarios)
      for (const d of deployments)
        await bench.round(d, scenario, { kind: 'closed', concurrency: 10, commands: Math.min(COMMANDS, 300) });
    progress('warm-up done');

    // Idle: what the replicas read of the database with no request at all (background work, caches), per minute.
    await sleep(PG_STATS_SETTLE_MS);
    const idleBefore = await tableReads(admin, schemas);
    await sleep(IDLE_MS);
    await sleep(PG_STATS_SETTLE_MS); // idle too, and the counters published
    const idleAfter = await tableReads(admin, schemas);
    const idleMinutes = (IDLE_MS + PG_STATS_SETTLE_MS) / 60_000;
    const idlePerReplicaMinute = (which: 'distribution' | 'single') =>
      Object.entries(idleAfter[which]).reduce((sum, [table, n]) => sum + n - (idleBefore[which][table] ?? 0), 0) /
      REPLICAS /
      idleMinutes;
    const idleTables = (which: 'distribution' | 'single') =>
      Object.entries(idleAfter[which])
        .map(([table, n]) => [table, (n - (idleBefore[which][table] ?? 0)) / REPLICAS / idleMinutes] as const)
        .filter(([, n]) => n > 0)
        .sort((x, y) => y[1] - x[1])
        .map(([table, n]) => `${table} ${n.toFixed(1)}`)
        .join(', ');
    progress('idle reads counted');

    // Every read of the installations table from here to the end of the load is counted.
    await sleep(PG_STATS_SETTLE_MS);
    const before = await tableReads(admin, schemas);
    const sentBefore = { distribution: distribution.sent, single: single.sent };
    const loadStarted = performance.now();

    const verdicts: string[] = [];
    const rows: string[] = [];
    /** Runs ROUNDS rounds of each deployment, in alternating order, and compares them. */
    const cell = async (scenario: Scenario, load: Load, label: string) => {
      const totals = { distribution: empty(), 'single-workspace': empty() };
      for (let i = 0; i < ROUNDS; i += 1) {
        const order = i % 2 === 0 ? deployments : [...deployments].reverse();
        for (const d of order) merge(totals[d.name], await bench.round(d, scenario, load));
      }
      progress(`${label} done`);
      const dist = summary(totals.distribution);
      const one = summary(totals['single-workspace']);
      const ratio = dist.p99 / one.p99;
      verdicts.push(
        check(
          `${label}: distribution ack p99 ${fmt(dist.p99)} ms <= single-workspace ${fmt(one.p99)} ms x${TARGETS.tolerance} (${ratio.toFixed(2)}x)`,
          dist.p99 <= one.p99 * TARGETS.tolerance,
        ),
      );
      if (SCENARIOS[scenario].result)
        verdicts.push(
          check(
            `${label}: distribution delivered ${totals.distribution.delivered}/${totals.distribution.expected} >= single-workspace ${totals['single-workspace'].delivered}/${totals['single-workspace'].expected}`,
            totals.distribution.delivered >= totals['single-workspace'].delivered,
          ),
        );
      const both = (show: (s: Stats) => string) => `${show(totals.distribution)} / ${show(totals['single-workspace'])}`;
      rows.push(
        `| ${scenario} | ${label.slice(scenario.length + 1)} | ${acks(dist)} | ${acks(one)} | ${ratio.toFixed(2)} | ${readAcks(totals.distribution)} | ${dist.rate.toFixed(0)} / ${one.rate.toFixed(0)} | ${SCENARIOS[scenario].result ? both((s) => `${s.delivered}/${s.expected}`) : '—'} | ${both((s) => (s.cpuMs / (s.acks.length || 1)).toFixed(2))} | ${both((s) => `${s.rssMaxMb.toFixed(0)} (${s.rssSumMb.toFixed(0)})`)} | ${both((s) => String(s.busy))} | ${both((s) => String(s.errors))} |`,
      );
    };
    for (const scenario of scenarios) {
      for (const concurrency of CONCURRENCIES)
        await cell(scenario, { kind: 'closed', concurrency, commands: COMMANDS }, `${scenario} C=${concurrency}`);
      for (const rate of FIXED_RATES)
        await cell(scenario, { kind: 'rate', rate, durationMs: ROUND_MS }, `${scenario} ${rate}/s`);
    }
    const loadMs = performance.now() - loadStarted;

    await sleep(PG_STATS_SETTLE_MS);
    const after = await tableReads(admin, schemas);
    const commands = {
      distribution: distribution.sent - sentBefore.distribution,
      single: single.sent - sentBefore.single,
    };
    const installationReads = (after.distribution.installations ?? 0) - (before.distribution.installations ?? 0);
    const allReads = (which: 'distribution' | 'single') =>
      Object.entries(after[which]).reduce((sum, [table, n]) => sum + n - (before[which][table] ?? 0), 0);
    // A request reads its installation only the first time a replica sees its workspace, and again only after
    // the change feed said it changed (nothing changes during the load).
    const cacheBound = Math.min(commands.distribution, ACTIVE * REPLICAS);
    verdicts.push(
      check(
        `authorization does not read the database on each request: ${installationReads} reads of installations for ${commands.distribution} commands (${(installationReads / commands.distribution).toFixed(3)} a command) <= ${cacheBound} (${ACTIVE} workspaces x ${REPLICAS} replicas the first time)`,
        installationReads <= cacheBound && installationReads < commands.distribution,
      ),
    );
    progress('reads counted');

    const reach = await uninstallReach(distribution, fixtures.workspaces.at(-1) as BenchWorkspace, fixtures.slackUrl);
    progress('uninstall reach measured');
    const gone = await admin.query(
      `select count(*)::int as n from ${schemas.distribution}.installations where id = $1`,
      [`T${reach.teamId}`],
    );
    const slowest = Math.max(...reach.replicas.map((r) => r.refusedAfterMs ?? Infinity));
    const reached = (r: UninstallReach['replicas'][number]) =>
      r.refusedAfterMs === undefined
        ? `not within ${UNINSTALL_WATCH_MS / 1000} s`
        : `${fmt(r.acceptedUntilMs)}-${fmt(r.refusedAfterMs)} ms`;
    verdicts.push(
      check(
        `uninstall sent to replica 1 reached every replica in ${fmt(slowest)} ms <= ${TARGETS.uninstallReachMs} ms (replica ${reach.replicas.map((r, i) => `${i + 1}: ${reached(r)}`).join(', ')}); installation row ${(gone.rows[0] as { n: number }).n === 0 ? 'deleted' : 'still there'}`,
        slowest <= TARGETS.uninstallReachMs && (gone.rows[0] as { n: number }).n === 0,
      ),
    );

    const starts = (d: Deployment) => d.replicas.map((r) => r.startMs.toFixed(0)).join(', ');
    const report = [
      `Mintlink distribution benchmark: ${new Date().toISOString()}, Node ${process.version}; PostgreSQL; ${WORKSPACES} installed workspaces (installations sealed with SECRETS_KEYS, as the OAuth flow stores them), commands from ${ACTIVE} of them spread round-robin over ${REPLICAS} replicas; against ${REPLICAS} replicas of the single-workspace app (SLACK_BOT_TOKEN, its own schema) given the same load from ${ACTIVE} users of its one workspace. ${ROUNDS} rounds per deployment and row in alternating order; closed loop ${COMMANDS} commands per round, fixed rates ${ROUND_MS} ms per round; Mint latency ${MINT_LATENCY_MS} ms.`,
      `Ack latency: from when the command was sent (fixed rates: when it was due) to its ack, whichever replica answered. CPU: all replicas of the deployment together, per command. RSS after: the largest replica's resident memory after its rounds (all replicas' together in brackets). Delivered: modals opened or pages posted, as the fake Slack received them. Commands that read their installation: the first from a workspace on each replica (the rest are authorized from what the replica keeps, forgotten when the change feed says the installation changed).`,
      '',
      '| scenario | load | distribution ack p50 / p95 / p99 (ms) | single-workspace ack p50 / p95 / p99 (ms) | p99 ratio (target <= 1.1) | distribution commands that read their installation: n, ack p50 / p99 (ms) | acks/s distribution / single | delivered distribution / single | CPU ms per command distribution / single | RSS after (MB) distribution / single | "busy" distribution / single | errors distribution / single |',
      `|${'---|'.repeat(12)}`,
      ...rows,
      '',
      `Database reads over the measured load (${(loadMs / 1000).toFixed(1)} s; PostgreSQL's table counters, sequential and index scans, read ${PG_STATS_SETTLE_MS / 1000} s before and after it): the installations table was read ${installationReads} times for ${commands.distribution} distribution commands (${(installationReads / commands.distribution).toFixed(3)} a command; without a cache every command would read it; the cache allows at most ${cacheBound}). Reads of all tables over the same time, background work included: ${allReads('distribution')} in distribution mode (${commands.distribution} commands), ${allReads('single')} in single-workspace mode (${commands.single} commands).`,
      `Idle replicas (no request for ${((IDLE_MS + PG_STATS_SETTLE_MS) / 1000).toFixed(0)} s, after the warm-up; PostgreSQL's table counters): ${idlePerReplicaMinute('distribution').toFixed(1)} table reads a minute per distribution replica (${idleTables('distribution') || 'none'}), ${idlePerReplicaMinute('single').toFixed(1)} per single-workspace replica (${idleTables('single') || 'none'}).`,
      `Uninstall (workspace ${reach.teamId}, its installation fresh in every replica's cache ${fmt(reach.cachedBeforeMs)} ms before): app_uninstalled sent to replica 1, acknowledged in ${fmt(reach.ackMs)} ms; then commands from it to each replica back to back until refused: reached replica ${reach.replicas.map((r, i) => `${i + 1} ${reached(r)} after (${r.accepted} accepted before)`).join(', ')}. A refusal: ${reach.refusal}. A workspace never installed: ${reach.neverInstalled}.`,
      `Start to ready (PostgreSQL): distribution replicas ${starts(distribution)} ms; single-workspace replicas ${starts(single)} ms.`,
      '',
      `Targets (comparisons allow ${Math.round((TARGETS.tolerance - 1) * 100)}% for measurement noise):`,
      ...verdicts,
    ];
    process.stdout.write(`${report.join('\n')}\n`);
    process.exitCode = verdicts.some((v) => v.startsWith('FAIL')) ? 1 : 0;
  } finally {
    for (const d of deployments) await Promise.all(d.replicas.map((r) => stopProcess(r.child)));
    for (const d of deployments) await Promise.all(d.replicas.map((r) => r.pool.destroy()));
    await stopProcess(fixturesProcess);
    for (const schema of Object.values(schemas)) await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.end();
    if (LOGS || PROFILE) process.stdout.write(`replicas' logs and profiles kept in ${cwd}\n`);
  }
  process.exit(process.exitCode ?? 0);
}

/** The test database's URL, with the schema the app's SQL runs in (search_path, as test/kit/store-engines.ts). */
function urlWithSchema(schema: string): string {
  const url = new URL(DATABASE_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}

/**
 * The installations, written through the app's own InstallationStore (tokens sealed as in production), as
 * Bolt's OAuth flow hands them over after oauth.v2.access; then each workspace's Mint account.
 */
async function seed(url: string, secretsKeys: string, workspaces: BenchWorkspace[]): Promise<void> {
  const key = parseSecretKey(secretsKeys);
  if (!key) throw new Error('bad SECRETS_KEYS');
  const box = new SecretBox([key]);
  const store = openStore({ engine: 'postgres', url });
  try {
    await store.migrate();
    const installations = new SqlInstallationStore(store, box, pino({ level: 'silent' }), () =>
      Promise.reject(new Error('no renewal while seeding')),
    );
    for (let i = 0; i < workspaces.length; i += 20) {
      await Promise.all(
        workspaces.slice(i, i + 20).map((w) =>
          installations.storeInstallation({
            team: { id: w.teamId, name: w.teamName },
            enterprise: undefined,
            user: { token: undefined, scopes: undefined, id: w.userId },
            bot: { scopes: CLIENT.scopes.split(','), token: w.botToken, userId: w.botUserId, id: w.botId },
            tokenType: 'bot',
            isEnterpriseInstall: false,
            appId: CLIENT.appId,
            authVersion: 'v2',
          }),
        ),
      );
    }
    await seedMintAccounts(store, box, workspaces);
  } finally {
    await store.close();
  }
}

/**
 * Each workspace's connected Mint account (sealed as the app seals a key an admin enters), so that its commands
 * are served rather than answered with how to connect. One key for every workspace: the bench's mock Mint
 * service accepts one.
 */
async function seedMintAccounts(store: Store, box: SecretBox, workspaces: BenchWorkspace[]): Promise<void> {
  for (const w of workspaces)
    await store.mintAccountRows.save({
      teamId: w.teamId,
      sealedKey: box.seal(TEST_MINT_API_KEY, mintKeySealContext(w.teamId)),
      keyLast4: lastFour(TEST_MINT_API_KEY),
      baseUrl: undefined,
      connectedBy: w.userId,
    });
}

async function migrateOnly(url: string): Promise<void> {
  const store = openStore({ engine: 'postgres', url });
  try {
    await store.migrate();
  } finally {
    await store.close();
  }
}

async function startReplicas(name: ModeName, cwd: string, env: Record<string, string>): Promise<Replica[]> {
  const replicas: Replica[] = [];
  // One after the other: each start is measured alone (they share the 2 cores otherwise).
  for (let i = 1; i <= REPLICAS; i += 1) replicas.push(await startReplica(`${name}-${i}`, cwd, env));
  return replicas;
}

async function startReplica(name: string, cwd: string, env: Record<string, string>): Promise<Replica> {
  const port = await freePort();
  const started = performance.now();
  // BENCH_PROFILE=1 writes a CPU profile of each replica to the working directory (kept) when it stops.
  const flags = PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${cwd}`, `--cpu-prof-name=${name}.cpuprofile`] : [];
  const child = spawn(process.execPath, [...flags, ...startArguments()], {
    cwd,
    env: { ...env, PORT: String(port) },
    // The log to a file of its own with BENCH_LOGS=1; otherwise nowhere, as in `npm run bench`.
    stdio: ['ignore', LOGS ? openSync(join(cwd, `${name}.log`), 'a') : 'ignore', 'inherit'],
  });
  process.once('exit', () => child.kill('SIGKILL')); // no replica left behind if the benchmark fails
  const base = `http://127.0.0.1:${port}`;
  for (;;) {
    const ready = await fetch(`${base}/readyz`).then(
      (res) => res.status === 200,
      () => false,
    );
    if (ready) break;
    if (child.exitCode !== null) throw new Error(`a replica exited with ${child.exitCode}`);
    if (performance.now() - started > 30_000) throw new Error('a replica did not start');
    await sleep(5);
  }
  return { child, pool: new Pool(base, { connections: 64 }), base, startMs: performance.now() - started };
}

/** Sends commands to a deployment and counts what they did. */
class Bench {
  constructor(private readonly fixtures: Fixtures) {}

  /**
   * One round against one deployment: the commands (closed loop: `concurrency` senders, each sending its next
   * command as soon as the last is acknowledged; or open loop: one every 1/rate s whatever the answers), each
   * to the next replica and from the next sender in turn, then the wait for their results in the fake Slack.
   */
  async round(d: Deployment, scenario: Scenario, load: Load): Promise<Stats> {
    const stats = empty();
    const resultKind = SCENARIOS[scenario].result;
    const ids = new Set<string>();
    const slack: SlackUrls = {
      responseUrl: () => `${this.fixtures.slackUrl}/response/${randomUUID()}`,
      triggerId: () => `bench.${randomUUID()}`,
    };
    if (resultKind) await fetch(`${this.fixtures.slackUrl}/__bench/arrivals/clear`, { method: 'POST' });
    const cpuBefore = d.replicas.map((r) => cpuMs(r.child.pid));
    const send = async (since: number) => {
      const n = d.sent++;
      const sender = d.senders[n % d.senders.length] as { teamId: string; userId: string };
      const replica = d.replicas[n % d.replicas.length] as Replica;
      const fields = slashCommand(slack, SCENARIOS[scenario].text, {
        team_id: sender.teamId,
        team_domain: sender.teamId.toLowerCase(),
        user_id: sender.userId,
        user_name: sender.userId.toLowerCase(),
      });
      if (resultKind === 'views.open') ids.add(fields.trigger_id ?? '');
      if (resultKind === 'in_channel') ids.add((fields.response_url ?? '').split('/').at(-1) ?? '');
      const answer = await command(replica, formBody(fields));
      const ackMs = performance.now() - since;
      stats.acks.push(ackMs);
      if (d.readAt) {
        const key = `${n % d.replicas.length} ${sender.teamId}`;
        const last = d.readAt.get(key);
        if (last === undefined) {
          d.readAt.set(key, since);
          stats.readAcks.push(ackMs);
        }
      }
      if (answer.status !== 200) stats.errors += 1;
      if (/busy/i.test(answer.text)) stats.busy += 1;
    };

    stats.sendMs = await drive(load, send);
    if (resultKind) {
      stats.expected = ids.size;
      stats.delivered = await this.arrived(resultKind, ids);
    }
    stats.cpuMs = d.replicas.reduce((sum, r, i) => sum + cpuMs(r.child.pid) - (cpuBefore[i] ?? 0), 0);
    const rss = d.replicas.map((r) => rssMb(r.child.pid));
    stats.rssMaxMb = Math.max(...rss);
    stats.rssSumMb = rss.reduce((a, b) => a + b, 0);
    return stats;
  }

  /** How many of `ids` reached the fake Slack as `kind` (until all did, none came for QUIET_MS, or RESULTS_MAX_MS). */
  private async arrived(kind: BenchArrival['kind'], ids: Set<string>): Promise<number> {
    const found = new Set<string>();
    const started = performance.now();
    let lastArrival = started;
    let since = 0;
    for (;;) {
      const page = (await (await fetch(`${this.fixtures.slackUrl}/__bench/arrivals?since=${since}`)).json()) as {
        next: number;
        arrivals: Array<[BenchArrival['kind'], string, number]>;
      };
      since = page.next;
      if (page.arrivals.length > 0) lastArrival = performance.now();
      for (const [k, id] of page.arrivals) if (k === kind && ids.has(id)) found.add(id);
      const now = performance.now();
      if (found.size >= ids.size || now - lastArrival > QUIET_MS || now - started > RESULTS_MAX_MS) break;
      await sleep(50);
    }
    return found.size;
  }
}

interface UninstallReach {
  teamId: string;
  /** From when the last replica cached the installation to when app_uninstalled was sent. */
  cachedBeforeMs: number;
  ackMs: number;
  /**
   * Each replica's reach, from when app_uninstalled was sent: after `acceptedUntilMs` (the last accepted
   * command was sent then, so it was authorized later) and by `refusedAfterMs` (the first refused command's
   * answer came then); undefined when every command was accepted for UNINSTALL_WATCH_MS.
   */
  replicas: Array<{ acceptedUntilMs: number; refusedAfterMs: number | undefined; accepted: number }>;
  /** What a refused command looked like, and what a command from a workspace never installed got. */
  refusal: string;
  neverInstalled: string;
}

/**
 * `app_uninstalled` for a workspace sent to replica 1 while every replica has its installation freshly cached
 * (a command from it to each just before), then commands from it
 * to every replica, one at a time each, until each refuses: the time from the uninstall to each one's first
 * refusal.
 */
async function uninstallReach(d: Deployment, workspace: BenchWorkspace, slackUrl: string): Promise<UninstallReach> {
  const urls: SlackUrls = {
    responseUrl: () => `${slackUrl}/response/${randomUUID()}`,
    triggerId: () => `bench.${randomUUID()}`,
  };
  const help = (teamId: string, userId: string) =>
    formBody(slashCommand(urls, 'help', { team_id: teamId, user_id: userId, user_name: userId.toLowerCase() }));
  const accepted = (a: { status: number; text: string }) => a.status === 200 && a.text.length > 0;
  const describe = (a: { status: number; text: string }) =>
    `HTTP ${a.status}${a.text ? `, ${JSON.stringify(a.text.slice(0, 60))}` : ', no body'}`;

  const never = await command(d.replicas[0] as Replica, help('TNEVERINST', 'UNEVERINST'));
  for (const replica of d.replicas) {
    const answer = await command(replica, help(workspace.teamId, workspace.userId));
    if (!accepted(answer)) throw new Error(`a command from ${workspace.teamId} was refused before the uninstall`);
  }
  const cachedAt = performance.now();
  const body = inTeam(eventCallback({ type: 'app_uninstalled' }), workspace.teamId);
  const payload = JSON.stringify({
    ...body,
    api_app_id: TEST_APP_ID,
    authorizations: [{ team_id: workspace.teamId, user_id: workspace.botUserId, is_bot: true }],
  });
  const sentAt = performance.now();
  const ack = await post(d.replicas[0] as Replica, payload, 'application/json');
  const ackMs = performance.now() - sentAt;
  if (ack.status !== 200) throw new Error(`app_uninstalled was answered ${ack.status}`);

  let refusal = '';
  // Back to back, one in flight per replica: the reach is known to within one command's round trip.
  const watch = async (replica: Replica) => {
    let count = 0;
    let acceptedUntilMs = 0;
    while (performance.now() - sentAt < UNINSTALL_WATCH_MS) {
      const sent = performance.now() - sentAt;
      const answer = await command(replica, help(workspace.teamId, workspace.userId));
      if (!accepted(answer)) {
        refusal ||= describe(answer);
        return { acceptedUntilMs, refusedAfterMs: performance.now() - sentAt, accepted: count };
      }
      count += 1;
      acceptedUntilMs = sent;
    }
    return { acceptedUntilMs, refusedAfterMs: undefined, accepted: count };
  };
  const replicas = await Promise.all(d.replicas.map((replica) => watch(replica)));
  return {
    teamId: workspace.teamId,
    cachedBeforeMs: sentAt - cachedAt,
    ackMs,
    replicas,
    refusal,
    neverInstalled: describe(never),
  };
}

async function command(replica: Replica, body: string): Promise<{ status: number; text: string }> {
  return post(replica, body, 'application/x-www-form-urlencoded');
}

/** A signed POST to /slack/events; status 0 when it failed or took longer than Slack waits for. */
async function post(replica: Replica, body: string, contentType: string): Promise<{ status: number; text: string }> {
  try {
    const res = await replica.pool.request({
      method: 'POST',
      path: '/slack/events',
      headers: { 'content-type': contentType, ...slackSignatureHeaders(body, TEST_SIGNING_SECRET) },
      body,
      headersTimeout: ACK_TIMEOUT_MS,
      bodyTimeout: ACK_TIMEOUT_MS,
    });
    return { status: res.statusCode, text: await res.body.text() };
  } catch {
    return { status: 0, text: '' };
  }
}

/** Sequential and index scans of each table of both schemas, as PostgreSQL has published them. */
async function tableReads(
  admin: pg.Client,
  schemas: { distribution: string; single: string },
): Promise<{ distribution: Record<string, number>; single: Record<string, number> }> {
  const of = async (schema: string) => {
    const result = await admin.query(
      `select relname, (coalesce(seq_scan, 0) + coalesce(idx_scan, 0))::int as reads
         from pg_stat_user_tables where schemaname = $1`,
      [schema],
    );
    return Object.fromEntries(
      (result.rows as Array<{ relname: string; reads: number }>).map((r) => [r.relname, r.reads]),
    );
  };
  return { distribution: await of(schemas.distribution), single: await of(schemas.single) };
}

function cpuMs(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in clock ticks of 10 ms
  } catch {
    return NaN; // the process is gone
  }
}

function rssMb(pid: number | undefined): number {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;
  } catch {
    return NaN;
  }
}

function empty(): Stats {
  return {
    acks: [],
    readAcks: [],
    errors: 0,
    busy: 0,
    sendMs: 0,
    expected: 0,
    delivered: 0,
    rssMaxMb: 0,
    rssSumMb: 0,
    cpuMs: 0,
  };
}

function merge(into: Stats, from: Stats): void {
  into.acks.push(...from.acks);
  into.readAcks.push(...from.readAcks);
  into.errors += from.errors;
  into.busy += from.busy;
  into.sendMs += from.sendMs;
  into.expected += from.expected;
  into.delivered += from.delivered;
  into.rssMaxMb = Math.max(into.rssMaxMb, from.rssMaxMb);
  into.rssSumMb = Math.max(into.rssSumMb, from.rssSumMb);
  into.cpuMs += from.cpuMs;
}

function percentiles(values: number[]) {
  const sorted = [...values].sort((x, y) => x - y);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99) };
}

function summary(stats: Stats) {
  return { ...percentiles(stats.acks), rate: (stats.acks.length / stats.sendMs) * 1000 };
}

const readAcks = (s: Stats) => {
  const p = percentiles(s.readAcks);
  return `${s.readAcks.length}, ${fmt(p.p50)} / ${fmt(p.p99)}`;
};
const acks = (s: ReturnType<typeof summary>) => `${fmt(s.p50)} / ${fmt(s.p95)} / ${fmt(s.p99)}`;
const fmt = (ms: number) => (Number.isFinite(ms) ? ms.toFixed(1) : '—');
const check = (text: string, ok: boolean) => `${ok ? 'PASS' : 'FAIL'} ${text}`;
