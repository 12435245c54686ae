/*
 * `npm run bench`: the real app against a bare Bolt app (same Bolt version, /mintlink only acks), both in
 * HTTP mode, against the fake Slack and the mock Mint service (latency 1 s). Signed slash commands are fired
 * at both in alternating rounds at several concurrencies; ack latency, throughput, errors and memory are
 * reported with the app/bare ratios, and the targets are checked (exit code 1 when one is missed).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { MAX_PENDING_PER_CONNECTION, MINT_CONNECTIONS } from '../../src/mint-api/mint-api-client.js';
import { DEMO_CONTRACT_ID } from '../../src/mock-mint-api/demo-templates.js';
import { TEST_MINT_API_KEY, TEST_SIGNING_SECRET, startArguments } from '../kit/app-process.js';
import { freePort } from '../kit/free-port.js';
import { formBody, slashCommand, type SlackUrls } from '../kit/slack-payloads.js';
import { slackSignatureHeaders } from '../kit/slack-signature.js';

const CONCURRENCIES = (process.env.BENCH_CONCURRENCIES ?? '1,10,50').split(',').map(Number);
const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 2_500);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2); // per target and cell, alternating app/bare
const FIXED_RATES = (process.env.BENCH_RATES ?? '100,500').split(',').filter(Boolean).map(Number);
const MINT_LATENCY_MS = 1_000;

const TARGETS = { p99Ratio: 1.2, throughputRatio: 0.8, slowestAckMs: 1_000, rssMb: 150, startMs: 1_000 };

const SCENARIOS = {
  templates: `templates ${DEMO_CONTRACT_ID} 10`,
  'modal open': '',
  /** Not a target: the app's fixed cost per request, for diagnosis (BENCH_SCENARIOS=help). */
  help: 'help',
} as const;
type Scenario = keyof typeof SCENARIOS;

interface Target {
  name: 'app' | 'bare';
  child: ChildProcess;
  pool: Pool;
  base: string;
}

interface Stats {
  latencies: number[];
  errors: number;
  elapsedMs: number;
  /** CPU milliseconds used during the round: the target, the fixtures process, this load generator. */
  cpu: { target: number; fixtures: number; loadgen: number };
}

let fixturesPid = 0;

function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in clock ticks of 10 ms
}

/** CPU time of the target process itself per command: what the ratios come down to on a saturated machine. */
function cpuMsPerCommand(stats: Stats): string {
  return (stats.cpu.target / (stats.latencies.length || 1)).toFixed(2);
}

function cpuPerRequest(stats: Stats): string {
  const n = stats.latencies.length || 1;
  return `target ${(stats.cpu.target / n).toFixed(3)}, fixtures ${(stats.cpu.fixtures / n).toFixed(3)}, loadgen ${(stats.cpu.loadgen / n).toFixed(3)}`;
}

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

interface Fixtures {
  slackUrl: string;
  apiUrl: string;
  botToken: string;
  mintUrl: string;
}

async function main(): Promise<void> {
  const fixturesProcess = spawn(process.execPath, ['--import', 'tsx', here('./fixtures.ts')], { env: { ...process.env, MINT_LATENCY_MS: String(MINT_LATENCY_MS) }, stdio: ['ignore', 'pipe', 'inherit'] });
  const fixtures = JSON.parse(await firstLine(fixturesProcess)) as Fixtures;
  fixturesPid = fixturesProcess.pid ?? 0;
  const mint = {
    behaviour: (body: unknown) => fetch(`${fixtures.mintUrl}/__mock/behaviour`, { method: 'POST', body: JSON.stringify(body) }),
    reset: () => fetch(`${fixtures.mintUrl}/__mock/reset`, { method: 'POST' }),
  };
  const slack: SlackUrls = {
    responseUrl: () => `${fixtures.slackUrl}/response/${randomUUID()}`,
    triggerId: () => `bench.${randomUUID()}`,
  };

  const baseEnv = {
    PATH: process.env.PATH ?? '',
    SLACK_BOT_TOKEN: fixtures.botToken,
    SLACK_SIGNING_SECRET: TEST_SIGNING_SECRET,
    SLACK_API_URL: fixtures.apiUrl,
  };
  const cwd = mkdtempSync(join(tmpdir(), 'mintlink-bench-'));
  if (process.env.BENCH_PROFILE) process.stdout.write(`profiles in ${cwd}\n`);
  const { target: app, startMs } = await startTarget('app', startArguments(), cwd, {
    ...baseEnv,
    MINT_API_BASE_URL: fixtures.mintUrl,
    MINT_API_KEY: TEST_MINT_API_KEY,
    DATABASE_URL: `file:${join(cwd, 'bench.sqlite')}`,
    LOG_LEVEL: 'info',
  });
  const { target: bare } = await startTarget('bare', [here('./bare-bolt-app.mjs')], cwd, baseEnv);

  const rows: string[] = [];
  const verdicts: string[] = [];
  let slowestAppAck = 0;
  const scenarios = (process.env.BENCH_SCENARIOS?.split(',') ?? ['templates', 'modal open']) as Scenario[];
  for (const scenario of scenarios) {
    for (const concurrency of CONCURRENCIES) {
      const totals = { app: empty(), bare: empty() };
      await round(app, slack, scenario, concurrency, 500); // warm-up, not counted
      await round(bare, slack, scenario, concurrency, 500);
      const refusedBefore = await refusedUnderOverload(app);
      for (let i = 0; i < ROUNDS; i += 1) {
        for (const target of i % 2 === 0 ? [app, bare] : [bare, app]) merge(totals[target.name], await round(target, slack, scenario, concurrency, ROUND_MS));
      }
      const a = summary(totals.app);
      const b = summary(totals.bare);
      const refusedAfter = await refusedUnderOverload(app);
      const refused = (key: keyof typeof refusedAfter) => `${((100 * (refusedAfter[key] - refusedBefore[key])) / (totals.app.latencies.length || 1)).toFixed(0)}%`;
      if (process.env.BENCH_CPU) {
        process.stdout.write(`${scenario} c=${concurrency} cpu ms per request: app ${cpuPerRequest(totals.app)} bare ${cpuPerRequest(totals.bare)}\n`);
      }
      slowestAppAck = Math.max(slowestAppAck, a.max);
      const p99Ratio = a.p99 / b.p99;
      const throughputRatio = a.rps / b.rps;
      rows.push(
        `| ${scenario} | ${concurrency} | ${fmt(a.p50)} / ${fmt(a.p95)} / ${fmt(a.p99)} | ${fmt(b.p50)} / ${fmt(b.p95)} / ${fmt(b.p99)} | ${p99Ratio.toFixed(2)} | ${a.rps.toFixed(0)} | ${b.rps.toFixed(0)} | ${throughputRatio.toFixed(2)} | ${totals.app.errors} / ${totals.bare.errors} | ${cpuMsPerCommand(totals.app)} / ${cpuMsPerCommand(totals.bare)} | ${refused('busy')} / ${refused('mintShed')} |`,
      );
      verdicts.push(check(`${scenario} c=${concurrency}: ack p99 ratio ${p99Ratio.toFixed(2)} <= ${TARGETS.p99Ratio}`, p99Ratio <= TARGETS.p99Ratio));
      verdicts.push(check(`${scenario} c=${concurrency}: throughput ratio ${throughputRatio.toFixed(2)} >= ${TARGETS.throughputRatio}`, throughputRatio >= TARGETS.throughputRatio));
      verdicts.push(check(`${scenario} c=${concurrency}: no errors`, totals.app.errors === 0 && totals.bare.errors === 0));
    }
  }

  // Not a target: ack latency at loads the machine carries, for operators sizing a deployment.
  const fixedRateRows: string[] = [];
  for (const scenario of scenarios) {
    for (const rate of FIXED_RATES) {
      const totals = { app: empty(), bare: empty() };
      for (let i = 0; i < ROUNDS; i += 1) {
        for (const target of i % 2 === 0 ? [app, bare] : [bare, app]) merge(totals[target.name], await fixedRateRound(target, slack, scenario, rate, ROUND_MS));
      }
      const a = summary(totals.app);
      const b = summary(totals.bare);
      fixedRateRows.push(
        `| ${scenario} | ${rate} | ${fmt(a.p50)} / ${fmt(a.p95)} / ${fmt(a.p99)} | ${fmt(b.p50)} / ${fmt(b.p95)} / ${fmt(b.p99)} | ${(a.p99 / b.p99).toFixed(2)} | ${totals.app.errors} / ${totals.bare.errors} |`,
      );
    }
  }

  // The Mint service hanging: acks must not wait for it.
  await mint.behaviour({ fail: { route: 'list_templates', mode: 'hang', times: 1_000_000 } });
  const hanging = summary(await round(app, slack, 'templates', 10, ROUND_MS));
  await mint.reset();
  slowestAppAck = Math.max(slowestAppAck, hanging.max);

  const rssAfterLoad = { app: rssMb(app), bare: rssMb(bare) };
  if (process.env.BENCH_CPU) {
    const metrics = await (await fetch(`${app.base}/metrics`)).text();
    const heap = metrics.split('\n').filter((l) => /^nodejs_(heap_size|heap_space_size_used|external_memory)/.test(l));
    process.stdout.write(`app memory after load:\n${heap.join('\n')}\n`);
  }
  await new Promise((resolve) => setTimeout(resolve, 12_000)); // work in flight drains (Mint budget 10 s)
  const rssSettled = { app: rssMb(app), bare: rssMb(bare) };

  verdicts.push(check(`slowest app ack ${slowestAppAck.toFixed(0)} ms < ${TARGETS.slowestAckMs} ms (Mint 1 s, or hanging: p99 ${fmt(hanging.p99)} ms)`, slowestAppAck < TARGETS.slowestAckMs));
  verdicts.push(check(`app resident memory after load ${rssAfterLoad.app.toFixed(0)} MB < ${TARGETS.rssMb} MB`, rssAfterLoad.app < TARGETS.rssMb));
  verdicts.push(check(`app start to ready ${startMs.toFixed(0)} ms < ${TARGETS.startMs} ms (SQLite)`, startMs < TARGETS.startMs));

  const report = [
    `Mintlink benchmark: ${new Date().toISOString()}, Node ${process.version}, rounds of ${ROUND_MS} ms x${ROUNDS} per target, Mint latency ${MINT_LATENCY_MS} ms`,
    '',
    '| scenario | concurrency | app ack p50 / p95 / p99 (ms) | bare ack p50 / p95 / p99 (ms) | p99 app/bare | app req/s | bare req/s | throughput app/bare | errors app / bare | CPU ms per command app / bare | app refused: busy / Mint busy |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    'At fixed rates (open loop: commands sent on schedule whatever the answers; not a target):',
    '',
    '| scenario | commands/s | app ack p50 / p95 / p99 (ms) | bare ack p50 / p95 / p99 (ms) | p99 app/bare | errors app / bare |',
    '|---|---|---|---|---|---|',
    ...fixedRateRows,
    '',
    `Resident memory after load: app ${rssAfterLoad.app.toFixed(0)} MB, bare ${rssAfterLoad.bare.toFixed(0)} MB; once work in flight drained: app ${rssSettled.app.toFixed(0)} MB, bare ${rssSettled.bare.toFixed(0)} MB.`,
    `App refused (under overload, with a message to the user instead of doing the work): "busy" = more than MAX_WORK_IN_FLIGHT commands were in progress; "Mint busy" = ${MINT_CONNECTIONS} connections x ${MINT_LATENCY_MS} ms latency were in use and ${MINT_CONNECTIONS * MAX_PENDING_PER_CONNECTION} calls waiting.`,
    `App start to ready (SQLite): ${startMs.toFixed(0)} ms. Acks while the Mint service hangs: p50 ${fmt(hanging.p50)}, p99 ${fmt(hanging.p99)}, max ${fmt(hanging.max)} ms.`,
    '',
    ...verdicts,
  ];
  process.stdout.write(`${report.join('\n')}\n`);

  for (const target of [app, bare]) {
    target.child.kill('SIGTERM');
    await target.pool.close();
  }
  fixturesProcess.kill('SIGTERM');
  process.exit(verdicts.some((v) => v.startsWith('FAIL')) ? 1 : 0);
}

async function startTarget(name: Target['name'], args: string[], cwd: string, env: Record<string, string>): Promise<{ target: Target; startMs: number }> {
  const port = await freePort();
  const started = performance.now();
  // BENCH_PROFILE=1 writes a CPU profile of each target to the working directory when it stops.
  const flags = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${cwd}`] : [];
  const child = spawn(process.execPath, [...flags, ...args], { cwd, env: { ...env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'inherit'] });
  const base = `http://127.0.0.1:${port}`;
  // Ready: the app answers /readyz 200 (database migrated); the bare app answers anything on its port.
  for (;;) {
    const ready = await fetch(`${base}${name === 'app' ? '/readyz' : '/'}`).then(
      (res) => (name === 'app' ? res.status === 200 : true),
      () => false,
    );
    if (ready) break;
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`);
    if (performance.now() - started > 20_000) throw new Error(`${name} did not start`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const startMs = performance.now() - started;
  return { target: { name, child, pool: new Pool(base, { connections: 64 }), base }, startMs };
}

/** Closed loop: `concurrency` senders, each sending its next command as soon as the last is acknowledged. */
function round(target: Target, slack: SlackUrls, scenario: Scenario, concurrency: number, durationMs: number): Promise<Stats> {
  return measured(target, async (stats) => {
    const end = performance.now() + durationMs;
    const sender = async () => {
      while (performance.now() < end) await sendCommand(target, slack, scenario, stats, performance.now());
    };
    await Promise.all(Array.from({ length: concurrency }, sender));
  });
}

/**
 * Open loop: a command every 1/rate s whatever the answers, as users would send them: latency at a load the
 * machine can carry. Measured from when each command was due, so a late send counts against the target.
 */
function fixedRateRound(target: Target, slack: SlackUrls, scenario: Scenario, rate: number, durationMs: number): Promise<Stats> {
  return measured(target, async (stats) => {
    const started = performance.now();
    const sent: Array<Promise<void>> = [];
    for (let due = started; due < started + durationMs; due += 1000 / rate) {
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      sent.push(sendCommand(target, slack, scenario, stats, Math.min(due, performance.now()))); // timers may wake early
    }
    await Promise.all(sent);
  });
}

async function sendCommand(target: Target, slack: SlackUrls, scenario: Scenario, stats: Stats, since: number): Promise<void> {
  const body = formBody(slashCommand(slack, SCENARIOS[scenario]));
  const headers = { 'content-type': 'application/x-www-form-urlencoded', ...slackSignatureHeaders(body, TEST_SIGNING_SECRET) };
  try {
    const res = await target.pool.request({ method: 'POST', path: '/slack/events', headers, body });
    await res.body.dump();
    if (res.statusCode !== 200) stats.errors += 1;
  } catch {
    stats.errors += 1;
  }
  stats.latencies.push(performance.now() - since);
}

/** Runs a round and adds its elapsed time and the CPU time of the target, the fixtures and this process. */
async function measured(target: Target, run: (stats: Stats) => Promise<void>): Promise<Stats> {
  const stats = empty();
  const before = { target: cpuMs(target.child.pid ?? 0), fixtures: fixturesPid ? cpuMs(fixturesPid) : 0, loadgen: cpuMs(process.pid) };
  const started = performance.now();
  await run(stats);
  stats.elapsedMs = performance.now() - started;
  stats.cpu = {
    target: cpuMs(target.child.pid ?? 0) - before.target,
    fixtures: fixturesPid ? cpuMs(fixturesPid) - before.fixtures : 0,
    loadgen: cpuMs(process.pid) - before.loadgen,
  };
  return stats;
}

async function firstLine(child: ChildProcess): Promise<string> {
  for await (const line of createInterface({ input: child.stdout! })) return line;
  throw new Error('the fixtures process exited before it was ready');
}

function empty(): Stats {
  return { latencies: [], errors: 0, elapsedMs: 0, cpu: { target: 0, fixtures: 0, loadgen: 0 } };
}

function merge(into: Stats, from: Stats): void {
  into.latencies.push(...from.latencies);
  into.errors += from.errors;
  into.elapsedMs += from.elapsedMs;
  into.cpu.target += from.cpu.target;
  into.cpu.fixtures += from.cpu.fixtures;
  into.cpu.loadgen += from.cpu.loadgen;
}

function summary(stats: Stats) {
  const sorted = [...stats.latencies].sort((x, y) => x - y);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99), max: sorted.at(-1) ?? NaN, rps: (sorted.length / stats.elapsedMs) * 1000 };
}

/** Commands the app refused under overload so far, from its /metrics: at the ack, or at the Mint call. */
async function refusedUnderOverload(app: Target): Promise<{ busy: number; mintShed: number }> {
  const lines = (await (await fetch(`${app.base}/metrics`)).text()).split('\n');
  const sum = (prefix: string, label: string) =>
    lines.filter((l) => l.startsWith(prefix) && l.includes(label)).reduce((total, l) => total + Number(l.split(' ').at(-1)), 0);
  return { busy: sum('mintlink_commands_handled_total{', 'outcome="busy"'), mintShed: sum('mintlink_mint_api_calls_total{', 'status="shed"') };
}

function rssMb(target: Target): number {
  const status = readFileSync(`/proc/${target.child.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) / 1024;
}

const fmt = (ms: number) => ms.toFixed(1);
const check = (text: string, ok: boolean) => `${ok ? 'PASS' : 'FAIL'} ${text}`;

await main();
