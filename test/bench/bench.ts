/*
 * `npm run bench`: the real app against two plain Bolt apps (same Bolt version), all three in HTTP mode, against
 * the fake Slack and the mock Mint service (latency 1 s), which run in a process of their own:
 *  - the peer (peer-bolt-app.mjs) does the same two flows the way Bolt's docs write them, with the SDK's
 *    defaults: what the app is compared with, for the work delivered and the time it takes;
 *  - the bare app (bare-bolt-app.mjs) only acks: the limit of what a Bolt app can ack on this machine.
 * Signed slash commands are fired at the three in alternating rounds, closed loop and at fixed rates; the fake
 * Slack notes when each views.open and in_channel post arrives, so the work delivered and the time from
 * command to result are measured, not only the acks. Then a flood of clicks whose response_url never answers
 * is sent to the app alone. The targets are checked at the end (exit code 1 when one is missed).
 * `npm run bench -- --help` lists the options. It runs under `node --import tsx`, not the tsx command, which
 * would leave its IPC folder (/tmp/tsx-<uid>) behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { DEMO_CONTRACT_ID } from '../../src/operator/mock-mint-api/demo-templates.js';
import { runBulkBench } from './bulk-bench.js';
import { runDistributionBench } from './distribution-bench.js';
import { runHistoryBench } from './history-bench.js';
import { runSandboxBench } from './sandbox-bench.js';
import { encodePageState, type PageState } from '../../src/capabilities/templates/page-state.js';
import { TEST_MINT_API_KEY, TEST_SIGNING_SECRET, startArguments } from '../kit/app-process.js';
import type { BenchArrival, FakeSlack } from '../kit/fake-slack.js';
import { freePort } from '../kit/free-port.js';
import { buttonClick, formBody, slashCommand, type PostedMessage, type SlackUrls } from '../kit/slack-payloads.js';
import { slackSignatureHeaders } from '../kit/slack-signature.js';
import { type Load, benchFolder, drive, firstLine, list, sleep, stopProcess } from './bench-kit.js';

const OPTIONS = `Usage: npm run bench [-- --help | --bulk | --sandbox | --distribution | --history]   (or: node --import tsx test/bench/bench.ts)

Runs the app, the peer (a plain Bolt app doing the same flows with the SDK's defaults) and the bare Bolt app
(acks only) against the fake Slack and the mock Mint service (latency 1 s), prints Markdown tables and PASS/FAIL
lines, and exits 1 when a target is missed. Run \`npm run build\` first (npm run bench does). Options, as
environment variables:

  BENCH_SCENARIOS      scenarios, comma-separated: templates, modal open, help (default "templates,modal open";
                       help only acks: the app's fixed cost per request, no work to deliver)
  BENCH_CONCURRENCIES  closed-loop concurrencies, comma-separated (default 1,10,50); empty for none
  BENCH_COMMANDS       commands per closed-loop round (default 400)
  BENCH_RATES          open-loop rates in commands per second, comma-separated (default 100,500); empty for none
  BENCH_ROUND_MS       length of an open-loop round in ms (default 2500)
  BENCH_ROUNDS         rounds per target and cell, in alternating order (default 2)
  BENCH_SKIP_FLOOD     1: skip the flood of clicks on a silent response_url (and the wait before it)
  BENCH_FLOOD_CLICKS   clicks in the flood (default 5000)
  BENCH_CPU            1: also print the CPU ms per command of the fixtures and of this load generator, and the
                       app's heap metrics after the load
  BENCH_PROFILE        1: write a CPU profile of each target (app, peer, bare) to a temporary directory (printed)
  BENCH_APP_HEAP_FLAGS the app's V8 heap flags instead of npm start's --max-* ones (e.g. "--max-old-space-size=160
                       --max-semi-space-size=16"; "none" for V8's defaults), to weigh them against memory
  BENCH_NODE_FLAGS     more node flags for each target, space-separated (e.g. "--perf-basic-prof-only-functions",
                       for Linux perf to name JavaScript functions: perf record -e cpu-clock -g -p <pid>)

--bulk runs the bulk scenario alone instead (test/bench/bulk-bench.ts, about 4.5 minutes): a job of 5,000 link
rows from a CSV file with the Mint service at 200 ms and BULK_CONCURRENCY 4, against the ideal 5000 x 0.2 / 4 =
250 s, the app's memory while it runs, and interactive acks during it. Its options:

  BENCH_BULK_ROWS              rows of the job (default 5000)
  BENCH_BULK_CONCURRENCY       the app's BULK_CONCURRENCY (default 4)
  BENCH_BULK_INTERACTIVE_RATE  interactive commands per second before and during the job (default 10)

--sandbox runs the sandbox's figures alone instead (test/bench/sandbox-bench.ts, about 40 seconds): \`npm run
sandbox\` started and its page drawn in Debian's chromium, then commands, submissions and clicks timed inside the
page, and the memory of the sandbox and its app. Targets: start to page ready < 2 s, click or submit to the
result drawn p95 < 300 ms, whole sandbox < 300 MB. Its options:

  BENCH_SANDBOX_STARTS   starts measured (default 5)
  BENCH_SANDBOX_ROUNDS   rounds of each interaction (default 40)

--distribution runs the distribution scenario alone instead (test/bench/distribution-bench.ts): the app in
distribution mode on PostgreSQL, installed in 1,000 workspaces (seeded through its installation store, tokens
sealed), as 3 replicas sharing the database, commands from 100 of the workspaces spread round-robin over them;
against 3 replicas of the single-workspace app given the same load from 100 users of its one workspace, in
alternating order. Then the installations table's reads per command (PostgreSQL's counters) and the time an
uninstall sent to one replica takes to reach the others. Each run creates two schemas in the database and drops
them at the end. BENCH_SCENARIOS (default "modal open,help"), BENCH_CONCURRENCIES (default 10,50),
BENCH_COMMANDS (default 600), BENCH_RATES (default 100,300: commands a second over all replicas),
BENCH_ROUND_MS (default 5000: one period of the installation cache), BENCH_ROUNDS as above, and:

  BENCH_DATABASE_URL        PostgreSQL (default TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/test)
  BENCH_WORKSPACES          installed workspaces (default 1000)
  BENCH_ACTIVE_WORKSPACES   workspaces the commands come from (default 100)
  BENCH_REPLICAS            replicas of each deployment (default 3)
  BENCH_LOGS                1: each replica's log to a file in a temporary directory (printed)
  BENCH_PROFILE             1: a CPU profile of each replica in that directory too (kept)

--history runs History's reads alone instead (test/bench/history-bench.ts): 1,000,000 rows in one workspace and
100 workspaces of 1,000 beside it, written by SQL into a database the app's migrations made, on SQLite and on
PostgreSQL (a schema of its own, dropped at the end); then the store's reads the History modal makes (first
page, Next and Previous by keyset, searches by one and two words, filters, a person's own rows), p95 against
300 ms. Its options:

  BENCH_HISTORY_ROWS        rows of the large workspace (default 1000000)
  BENCH_HISTORY_SIDE_ROWS   rows of each of the 100 other workspaces (default 1000)
  BENCH_HISTORY_RUNS        timed runs of each read (default 40)
  BENCH_DATABASE_URL        PostgreSQL (default TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/test)
`;

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  process.stdout.write(OPTIONS);
  process.exit(0);
}

const CONCURRENCIES = list(process.env.BENCH_CONCURRENCIES, '1,10,50').map(Number);
const FIXED_RATES = list(process.env.BENCH_RATES, '100,500').map(Number);
const COMMANDS = Number(process.env.BENCH_COMMANDS ?? 400);
const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 2_500);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const SKIP_FLOOD = Boolean(process.env.BENCH_SKIP_FLOOD && process.env.BENCH_SKIP_FLOOD !== '0');
const FLOOD_CLICKS = Number(process.env.BENCH_FLOOD_CLICKS ?? 5_000);
const FLOOD_CONCURRENCY = 50;
const MINT_LATENCY_MS = 1_000;
/** After a round's last ack, results are awaited until all came, none came for QUIET_MS, or RESULTS_MAX_MS passed. */
const QUIET_MS = 2_000;
const RESULTS_MAX_MS = 15_000;
/** Slack gives up on an ack after 3 s; the load generator after this (counted as an error). */
const ACK_TIMEOUT_MS = 10_000;

const TARGETS = {
  tolerance: 1.1,
  bareRatioAt100: 1.5,
  slowestAckMs: 1_000,
  rssMb: 150,
  floodRssMb: 300,
  startMs: 1_000,
};

const SCENARIOS = {
  templates: { text: `templates ${DEMO_CONTRACT_ID} 10`, result: 'in_channel' },
  'modal open': { text: '', result: 'views.open' },
  /** Not a target: the app's fixed cost per request, for diagnosis (BENCH_SCENARIOS=help). */
  help: { text: 'help', result: undefined },
} as const satisfies Record<string, { text: string; result: BenchArrival['kind'] | undefined }>;
type Scenario = keyof typeof SCENARIOS;

type TargetName = 'app' | 'peer' | 'bare';

interface Target {
  name: TargetName;
  child: ChildProcess;
  pool: Pool;
  base: string;
}

interface Stats {
  /** Ack latencies (ms): from when the command was sent (closed loop) or due (fixed rate) to the ack. */
  acks: number[];
  errors: number;
  /** Acks whose body says "busy" (the app turning work away). */
  busy: number;
  /** From the first send to the last ack. */
  sendMs: number;
  /** Commands that should produce a result in Slack (a views.open, an in_channel post), and how many did. */
  expected: number;
  delivered: number;
  /** From when the command was sent (or due) to when the fake Slack received its result (ms). */
  toResult: number[];
  /** Resident memory of the target after the round (the highest, once rounds are merged). */
  rssMb: number;
  /** CPU milliseconds used during the round, result delivery included: the target, the fixtures, this process. */
  cpu: { target: number; fixtures: number; loadgen: number };
}

interface Fixtures {
  slackUrl: string;
  apiUrl: string;
  botToken: string;
  mintUrl: string;
}

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

let fixturesPid = 0;
let fixtures: Fixtures;
/** The fixtures' clock minus this process's (wall-clock ms), measured at start. */
let clockOffsetMs = 0;

function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in clock ticks of 10 ms
}

function rssMb(pid: number | undefined): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) / 1024;
  } catch {
    return NaN; // the process is gone
  }
}

const wallClock = (performanceNow: number) => performance.timeOrigin + performanceNow;

async function main(): Promise<void> {
  const fixturesProcess = spawn(process.execPath, ['--import', 'tsx', here('./fixtures.ts')], {
    env: { ...process.env, MINT_LATENCY_MS: String(MINT_LATENCY_MS) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  fixtures = JSON.parse(await firstLine(fixturesProcess)) as Fixtures;
  fixturesPid = fixturesProcess.pid ?? 0;
  process.once('exit', () => fixturesProcess.kill('SIGKILL')); // no fixtures left behind if the benchmark fails
  clockOffsetMs = await measureClockOffset();
  const mint = {
    behaviour: (body: unknown) =>
      fetch(`${fixtures.mintUrl}/__mock/behaviour`, { method: 'POST', body: JSON.stringify(body) }),
    reset: () => fetch(`${fixtures.mintUrl}/__mock/reset`, { method: 'POST' }),
  };

  const baseEnv = {
    PATH: process.env.PATH ?? '',
    SLACK_BOT_TOKEN: fixtures.botToken,
    SLACK_SIGNING_SECRET: TEST_SIGNING_SECRET,
    SLACK_API_URL: fixtures.apiUrl,
  };
  const mintEnv = { MINT_API_BASE_URL: fixtures.mintUrl, MINT_API_KEY: TEST_MINT_API_KEY };
  const cwd = benchFolder('mintlink-bench-', Boolean(process.env.BENCH_PROFILE));
  if (process.env.BENCH_PROFILE) process.stdout.write(`profiles in ${cwd}\n`);
  const { target: app, startMs } = await startTarget('app', appArguments(), cwd, {
    ...baseEnv,
    ...mintEnv,
    DATABASE_URL: `file:${join(cwd, 'bench.sqlite')}`,
    LOG_LEVEL: 'info',
  });
  const { target: peer } = await startTarget('peer', [here('./peer-bolt-app.mjs')], cwd, { ...baseEnv, ...mintEnv });
  const { target: bare } = await startTarget('bare', [here('./bare-bolt-app.mjs')], cwd, baseEnv);
  const targets = [app, peer, bare];
  /** Round i goes app, peer, bare; round i+1 the other way. */
  const order = (i: number) => (i % 2 === 0 ? targets : [...targets].reverse());

  const verdicts: string[] = [];
  let slowestAppAck = 0;
  const scenarios = list(process.env.BENCH_SCENARIOS, 'templates,modal open') as Scenario[];
  for (const s of scenarios)
    if (!(s in SCENARIOS)) throw new Error(`unknown scenario ${s}: one of ${Object.keys(SCENARIOS).join(', ')}`);
  const benchStarted = performance.now();
  const progress = (text: string) =>
    process.stderr.write(`[bench ${((performance.now() - benchStarted) / 1000).toFixed(0)} s] ${text}\n`);

  /** Runs ROUNDS rounds per target in alternating order and compares the three. */
  const cell = async (scenario: Scenario, load: Load, label: string) => {
    const totals = { app: empty(), peer: empty(), bare: empty() };
    for (let i = 0; i < ROUNDS; i += 1) {
      for (const target of order(i)) merge(totals[target.name], await runRound(target, scenario, load));
    }
    progress(`${label} done`);
    if (process.env.BENCH_CPU) {
      process.stdout.write(
        `${label} cpu ms per command: ${targets.map((t) => `${t.name}: ${cpuPerCommandAll(totals[t.name])}`).join('; ')}\n`,
      );
    }
    const s = { app: summary(totals.app), peer: summary(totals.peer), bare: summary(totals.bare) };
    if (SCENARIOS[scenario].result) {
      verdicts.push(
        check(
          `${label}: app delivered ${totals.app.delivered}/${totals.app.expected} >= peer ${totals.peer.delivered}/${totals.peer.expected}`,
          totals.app.delivered >= totals.peer.delivered,
        ),
      );
      verdicts.push(
        check(
          `${label}: app time to result p99 ${fmt(s.app.resultP99)} ms <= peer ${fmt(s.peer.resultP99)} ms x${TARGETS.tolerance}`,
          s.app.resultP99 <= s.peer.resultP99 * TARGETS.tolerance,
        ),
      );
    }
    verdicts.push(
      check(
        `${label}: app ack p99 ${fmt(s.app.p99)} ms <= peer ${fmt(s.peer.p99)} ms x${TARGETS.tolerance}`,
        s.app.p99 <= s.peer.p99 * TARGETS.tolerance,
      ),
    );
    return { totals, s };
  };

  // Warm-up, not counted: each target once per scenario.
  for (const scenario of scenarios) {
    for (const target of targets)
      await runRound(target, scenario, { kind: 'closed', concurrency: 10, commands: Math.min(100, COMMANDS) });
  }
  progress('warm-up done');

  const closedRows: string[] = [];
  for (const scenario of scenarios) {
    for (const concurrency of CONCURRENCIES) {
      const { totals, s } = await cell(
        scenario,
        { kind: 'closed', concurrency, commands: COMMANDS },
        `${scenario} C=${concurrency}`,
      );
      slowestAppAck = Math.max(slowestAppAck, s.app.max);
      closedRows.push(
        `| ${scenario} | ${concurrency} | ${acks(s.app)} | ${acks(s.peer)} | ${acks(s.bare)} | ${s.app.rate.toFixed(0)} / ${s.peer.rate.toFixed(0)} / ${s.bare.rate.toFixed(0)} | ${work(scenario, totals)} | ${results(scenario, s.app)} | ${results(scenario, s.peer)} | ${perTarget(totals, cpuPerCommand)} | ${perTarget(totals, (t) => t.rssMb.toFixed(0))} | ${totals.app.busy} | ${perTarget(totals, (t) => String(t.errors))} |`,
      );
    }
  }

  const rateRows: string[] = [];
  for (const scenario of scenarios) {
    for (const rate of FIXED_RATES) {
      const label = `${scenario} at ${rate}/s`;
      const { totals, s } = await cell(scenario, { kind: 'rate', rate, durationMs: ROUND_MS }, label);
      if (rate === 100) {
        verdicts.push(
          check(
            `${label}: app ack p99 ${fmt(s.app.p99)} ms <= bare ${fmt(s.bare.p99)} ms x${TARGETS.bareRatioAt100}`,
            s.app.p99 <= s.bare.p99 * TARGETS.bareRatioAt100,
          ),
        );
      }
      rateRows.push(
        `| ${scenario} | ${rate} | ${acks(s.app)} | ${acks(s.peer)} | ${acks(s.bare)} | ${s.app.rate.toFixed(0)} / ${s.peer.rate.toFixed(0)} / ${s.bare.rate.toFixed(0)} | ${work(scenario, totals)} | ${results(scenario, s.app)} | ${results(scenario, s.peer)} | ${perTarget(totals, cpuPerCommand)} | ${perTarget(totals, (t) => t.rssMb.toFixed(0))} | ${totals.app.busy} | ${perTarget(totals, (t) => String(t.errors))} |`,
      );
    }
  }

  // The Mint service hanging: acks must not wait for it.
  await mint.behaviour({ fail: { route: 'list_templates', mode: 'hang', times: 1_000_000 } });
  const hanging = summary(
    await runRound(app, 'templates', { kind: 'closed', concurrency: 10, commands: COMMANDS }, { awaitResults: false }),
  );
  await mint.reset();
  slowestAppAck = Math.max(slowestAppAck, hanging.max);
  progress('Mint hanging done');

  const rssAfterLoad = { app: rssMb(app.child.pid), peer: rssMb(peer.child.pid), bare: rssMb(bare.child.pid) };
  if (process.env.BENCH_CPU) {
    const metrics = await fetch(`${app.base}/metrics`).then(
      (r) => r.text(),
      () => '',
    );
    const heap = metrics.split('\n').filter((l) => /^nodejs_(heap_size|heap_space_size_used|external_memory)/.test(l));
    process.stdout.write(`app memory after load:\n${heap.join('\n')}\n`);
  }

  let flood: FloodResult | undefined;
  let rssSettled: Record<TargetName, number> | undefined;
  if (!SKIP_FLOOD) {
    await sleep(11_000); // the hung Mint calls end (the app's Mint budget is 10 s): the flood starts from rest
    rssSettled = { app: rssMb(app.child.pid), peer: rssMb(peer.child.pid), bare: rssMb(bare.child.pid) };
    flood = await runFlood(app);
    progress('flood done');
    verdicts.push(
      check(
        `flood: app still up (${flood.exited ?? 'running'}, GET /healthz ${flood.healthz}, help ${flood.help})`,
        flood.up,
      ),
    );
    const peak = Math.max(flood.peakMb, flood.afterPeakMb);
    verdicts.push(
      flood.exited
        ? check(
            `flood: app resident memory < ${TARGETS.floodRssMb} MB: the app died during the flood (${flood.exited}; peak ${peak.toFixed(0)} MB until then)`,
            false,
          )
        : check(
            `flood: app resident memory peak ${flood.peakMb.toFixed(0)} MB during, ${flood.afterPeakMb.toFixed(0)} MB after < ${TARGETS.floodRssMb} MB`,
            peak < TARGETS.floodRssMb,
          ),
    );
  }

  verdicts.push(
    check(
      `slowest app ack ${fmt(slowestAppAck)} ms < ${TARGETS.slowestAckMs} ms (closed-loop rounds with Mint taking 1 s, and Mint hanging: p99 ${fmt(hanging.p99)} ms)`,
      slowestAppAck < TARGETS.slowestAckMs,
    ),
  );
  verdicts.push(
    check(
      `app resident memory after load ${rssAfterLoad.app.toFixed(0)} MB < ${TARGETS.rssMb} MB`,
      rssAfterLoad.app < TARGETS.rssMb,
    ),
  );
  verdicts.push(
    check(`app start to ready ${startMs.toFixed(0)} ms < ${TARGETS.startMs} ms (SQLite)`, startMs < TARGETS.startMs),
  );

  const header = (first: string) =>
    `| scenario | ${first} | app ack p50 / p95 / p99 (ms) | peer ack p50 / p95 / p99 (ms) | bare ack p50 / p95 / p99 (ms) | acks/s app / peer / bare | work delivered app / peer | app to result p50 / p99 (ms) | peer to result p50 / p99 (ms) | CPU ms per command app / peer / bare | RSS after (MB) app / peer / bare | app "busy" | errors app / peer / bare |`;
  const rule = `|${'---|'.repeat(13)}`;
  const mb = (r: Record<TargetName, number>) =>
    `app ${r.app.toFixed(0)} MB, peer ${r.peer.toFixed(0)} MB, bare ${r.bare.toFixed(0)} MB`;
  const report = [
    `Mintlink benchmark: ${new Date().toISOString()}, Node ${process.version}, Mint latency ${MINT_LATENCY_MS} ms, ${ROUNDS} rounds per target and row in alternating order; closed loop ${COMMANDS} commands per round, fixed rates ${ROUND_MS} ms per round; app heap flags: ${
      appArguments()
        .filter((arg) => arg.startsWith('--max-'))
        .join(' ') || "V8's defaults"
    }.`,
    `app = Mintlink (npm start); peer = plain Bolt app, same flows, SDK defaults (test/bench/peer-bolt-app.mjs); bare = Bolt app that only acks (the limit).`,
    `Work delivered: modals opened (views.open received by Slack) or pages posted (in_channel posts received), of the commands sent. Time to result: from when the command was sent (fixed rates: when it was due) to when Slack received its views.open / page, over the results delivered (a result not there ${QUIET_MS / 1000} s after the last arrival, at most ${RESULTS_MAX_MS / 1000} s after the last ack, counts as not delivered). CPU: the target process's, per command sent, result delivery included. RSS after: the target's resident memory after its rounds of the row (the highest). App "busy": acks saying so. (The fake Slack's clock differs from the load generator's by ${clockOffsetMs.toFixed(2)} ms; corrected.)`,
    '',
    ...(closedRows.length > 0
      ? [
          'Closed loop (C senders, each sending its next command as soon as the last was acknowledged):',
          '',
          header('C'),
          rule,
          ...closedRows,
          '',
        ]
      : []),
    ...(rateRows.length > 0
      ? [
          'At fixed rates (open loop: commands sent on schedule whatever the answers; latency from when each was due):',
          '',
          header('commands/s'),
          rule,
          ...rateRows,
          '',
        ]
      : []),
    `Resident memory after the load (Mint hanging round included): ${mb(rssAfterLoad)}${rssSettled ? `; once the hung Mint calls ended: ${mb(rssSettled)}` : ''}.`,
    `App start to ready (SQLite): ${startMs.toFixed(0)} ms. Acks while the Mint service hangs (${COMMANDS} commands, C=10): p50 ${fmt(hanging.p50)}, p99 ${fmt(hanging.p99)}, max ${fmt(hanging.max)} ms; ${hanging.errors} errors.`,
    ...(flood ? ['', floodParagraph(flood)] : []),
    '',
    `Targets (comparisons with the peer allow ${Math.round((TARGETS.tolerance - 1) * 100)}% for measurement noise: app <= peer x${TARGETS.tolerance}; work delivered is compared exactly):`,
    ...verdicts,
  ];
  process.stdout.write(`${report.join('\n')}\n`);

  // Stopped, and given time to exit (and write their CPU profiles) before the guard below kills them.
  // The app drains its requests first, the Mint calls left hanging by the round above included: a profile is
  // written only once it exits by itself.
  const graceMs = process.env.BENCH_PROFILE ? 60_000 : 5_000;
  await Promise.all(targets.map((target) => stopProcess(target.child, graceMs)));
  await Promise.all(targets.map((target) => target.pool.destroy()));
  await stopProcess(fixturesProcess);
  process.exit(verdicts.some((v) => v.startsWith('FAIL')) ? 1 : 0);
}

/** `npm start`'s node arguments, with BENCH_APP_HEAP_FLAGS in place of its heap flags when set. */
function appArguments(): string[] {
  const flags = process.env.BENCH_APP_HEAP_FLAGS;
  if (flags === undefined) return startArguments();
  const others = startArguments().filter((arg) => !arg.startsWith('--max-'));
  return [...(flags === 'none' ? [] : flags.split(/\s+/).filter(Boolean)), ...others];
}

async function startTarget(
  name: TargetName,
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ target: Target; startMs: number }> {
  const port = await freePort();
  const started = performance.now();
  // BENCH_PROFILE=1 writes a CPU profile of each target to the working directory when it stops.
  const flags = [
    ...(process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${cwd}`, `--cpu-prof-name=${name}.cpuprofile`] : []),
    ...(process.env.BENCH_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean),
  ];
  const child = spawn(process.execPath, [...flags, ...args], {
    cwd,
    env: { ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  process.once('exit', () => child.kill('SIGKILL')); // no process left behind if the benchmark fails
  const base = `http://127.0.0.1:${port}`;
  // Ready: the app answers /readyz 200 (database migrated); the Bolt apps answer anything on their port.
  for (;;) {
    const ready = await fetch(`${base}${name === 'app' ? '/readyz' : '/'}`).then(
      (res) => (name === 'app' ? res.status === 200 : true),
      () => false,
    );
    if (ready) break;
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`);
    if (performance.now() - started > 20_000) throw new Error(`${name} did not start`);
    await sleep(5);
  }
  const startMs = performance.now() - started;
  return { target: { name, child, pool: new Pool(base, { connections: 64 }), base }, startMs };
}

/**
 * One round against one target: the commands (closed loop: `concurrency` senders, each sending its next
 * command as soon as the last is acknowledged; or open loop: one every 1/rate s whatever the answers), then
 * the wait for their results in the fake Slack. CPU is counted over both.
 */
async function runRound(target: Target, scenario: Scenario, load: Load, { awaitResults = true } = {}): Promise<Stats> {
  const stats = empty();
  const resultKind = SCENARIOS[scenario].result;
  const tracked = awaitResults && target.name !== 'bare' && resultKind !== undefined;
  /** Wall-clock send (or due) time of each command, by the id its result will carry. */
  const sentAt = new Map<string, number>();
  const slack: SlackUrls = {
    responseUrl: () => `${fixtures.slackUrl}/response/${randomUUID()}`,
    triggerId: () => `bench.${randomUUID()}`,
  };
  if (tracked) await clearArrivals();
  const before = { target: cpuMs(target.child.pid ?? 0), fixtures: cpuMs(fixturesPid), loadgen: cpuMs(process.pid) };
  const send = async (since: number) => {
    const fields = slashCommand(slack, SCENARIOS[scenario].text);
    if (tracked)
      sentAt.set(
        resultKind === 'views.open'
          ? (fields.trigger_id ?? '')
          : (fields.response_url ?? '').slice((fields.response_url ?? '').lastIndexOf('/') + 1),
        wallClock(since),
      );
    await sendSigned(target, formBody(fields), since, stats);
  };

  stats.sendMs = await drive(load, send);

  if (tracked) {
    stats.expected = sentAt.size;
    const arrived = await awaitArrivals(resultKind, sentAt);
    stats.delivered = arrived.length;
    stats.toResult = arrived;
  }
  stats.cpu = {
    target: cpuMs(target.child.pid ?? 0) - before.target,
    fixtures: cpuMs(fixturesPid) - before.fixtures,
    loadgen: cpuMs(process.pid) - before.loadgen,
  };
  stats.rssMb = rssMb(target.child.pid);
  return stats;
}

/** A signed POST to /slack/events; records the ack latency (from `since`), errors and "busy" answers. */
async function sendSigned(target: Target, body: string, since: number, stats: Stats): Promise<number | 'error'> {
  const headers = {
    'content-type': 'application/x-www-form-urlencoded',
    ...slackSignatureHeaders(body, TEST_SIGNING_SECRET),
  };
  let status: number | 'error' = 'error';
  try {
    const res = await target.pool.request({
      method: 'POST',
      path: '/slack/events',
      headers,
      body,
      headersTimeout: ACK_TIMEOUT_MS,
      bodyTimeout: ACK_TIMEOUT_MS,
    });
    const text = await res.body.text();
    status = res.statusCode;
    if (res.statusCode !== 200) stats.errors += 1;
    if (/busy/i.test(text)) stats.busy += 1;
  } catch {
    stats.errors += 1;
  }
  stats.acks.push(performance.now() - since);
  return status;
}

async function clearArrivals(): Promise<void> {
  await fetch(`${fixtures.slackUrl}/__bench/arrivals/clear`, { method: 'POST' });
}

interface ArrivalsPage {
  next: number;
  silentOpen: number;
  arrivals: Array<[BenchArrival['kind'], string, number]>;
}

async function arrivalsSince(since: number): Promise<ArrivalsPage> {
  return (await (await fetch(`${fixtures.slackUrl}/__bench/arrivals?since=${since}`)).json()) as ArrivalsPage;
}

/**
 * Waits for the round's results (bounded: until all came, none came for QUIET_MS, or RESULTS_MAX_MS) and
 * returns the time from command to result of each one delivered, in ms.
 */
async function awaitArrivals(kind: BenchArrival['kind'], sentAt: Map<string, number>): Promise<number[]> {
  const found = new Map<string, number>();
  const started = performance.now();
  let lastArrival = started;
  let since = 0;
  for (;;) {
    const page = await arrivalsSince(since);
    since = page.next;
    if (page.arrivals.length > 0) lastArrival = performance.now();
    for (const [k, id, at] of page.arrivals) {
      const sent = sentAt.get(id);
      if (k === kind && sent !== undefined && !found.has(id)) found.set(id, at - clockOffsetMs - sent);
    }
    if (found.size >= sentAt.size) break;
    const now = performance.now();
    if (now - lastArrival > QUIET_MS || now - started > RESULTS_MAX_MS) break;
    await sleep(50);
  }
  return [...found.values()];
}

/** The fixtures' wall clock minus this process's, from the round trip with the smallest delay. */
async function measureClockOffset(): Promise<number> {
  let best = { rtt: Infinity, offset: 0 };
  for (let i = 0; i < 20; i += 1) {
    await clearArrivals();
    // A views.open noted by the fake carries the fixtures' time: send one and read it back.
    const sent = performance.now();
    await fetch(`${fixtures.apiUrl}views.open`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${fixtures.botToken}` },
      body: `trigger_id=clock.${i}&view=%7B%7D`,
    });
    const received = performance.now();
    const at = (await arrivalsSince(0)).arrivals.find(([, id]) => id === `clock.${i}`)?.[2];
    if (at !== undefined && received - sent < best.rtt)
      best = { rtt: received - sent, offset: at - wallClock((sent + received) / 2) };
  }
  await clearArrivals();
  return best.offset;
}

interface FloodResult {
  clicks: number;
  elapsedMs: number;
  statuses: Map<string, number>;
  ack: ReturnType<typeof summary>;
  busy: number;
  startMb: number;
  peakMb: number;
  afterMb: number;
  afterPeakMb: number;
  /** How the app ended, when it did. */
  exited: string | undefined;
  reachedSlack: number;
  heldOpen: number;
  healthz: number | string;
  help: string;
  up: boolean;
}

/**
 * FLOOD_CLICKS signed clicks on Next of a template page, FLOOD_CONCURRENCY at a time, whose response_url never
 * answers (the fake Slack holds each post open): the app's memory during and after, and whether it still works.
 */
async function runFlood(app: Target): Promise<FloodResult> {
  await clearArrivals();
  const page = (offset: number): PageState => ({ contractId: DEMO_CONTRACT_ID, offset, limit: 10, order: 'desc' });
  const message: PostedMessage = {
    text: `Templates of ${DEMO_CONTRACT_ID}`,
    ts: '1700000000.000100',
    blocks: [
      { type: 'header', block_id: 'header', text: { type: 'plain_text', text: `Templates of ${DEMO_CONTRACT_ID}` } },
      ...Array.from({ length: 10 }, (_, i) => ({
        type: 'section',
        block_id: `t${i}`,
        text: {
          type: 'mrkdwn',
          text: `*Genesis Pass #${String(123 - i).padStart(3, '0')}*\nDemo template of the Genesis collection: a membership pass minted on demand.`,
        },
      })),
      {
        type: 'actions',
        block_id: 'pages',
        elements: [
          {
            type: 'button',
            action_id: 'templates_previous',
            text: { type: 'plain_text', text: 'Previous' },
            value: encodePageState(page(0)),
          },
          {
            type: 'button',
            action_id: 'templates_next',
            text: { type: 'plain_text', text: 'Next' },
            value: encodePageState(page(10)),
          },
        ],
      },
    ],
  };
  const silent = {
    responseUrl: () => `${fixtures.slackUrl}/silent/${randomUUID()}`,
    triggerId: () => `bench.${randomUUID()}`,
  };
  const stats = empty();
  const statuses = new Map<string, number>();
  const startMb = rssMb(app.child.pid);
  let peakMb = startMb;
  const sampler = setInterval(() => (peakMb = Math.max(peakMb, rssMb(app.child.pid) || 0)), 50);
  const started = performance.now();
  let left = FLOOD_CLICKS;
  const sender = async () => {
    while (left > 0) {
      left -= 1;
      // buttonClick only asks the fake for a trigger_id and a response_url: here a silent one.
      const payload = buttonClick(silent as unknown as FakeSlack, message, 'templates_next');
      const status = await sendSigned(app, formBody({ payload: JSON.stringify(payload) }), performance.now(), stats);
      statuses.set(String(status), (statuses.get(String(status)) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: FLOOD_CONCURRENCY }, sender));
  const elapsedMs = performance.now() - started;
  clearInterval(sampler);

  // After: 5 s for what the clicks started, sampled.
  let afterPeakMb = rssMb(app.child.pid) || 0;
  for (let i = 0; i < 50; i += 1) {
    await sleep(100);
    afterPeakMb = Math.max(afterPeakMb, rssMb(app.child.pid) || 0);
  }
  const afterMb = rssMb(app.child.pid);
  const arrivals = await arrivalsSince(0);
  const healthz = await fetch(`${app.base}/healthz`, { signal: AbortSignal.timeout(5_000) }).then(
    (r) => r.status,
    (e: unknown) => String(e),
  );
  const helpStats = empty();
  const helpStatus = await sendSigned(
    app,
    formBody(
      slashCommand(
        {
          responseUrl: () => `${fixtures.slackUrl}/response/${randomUUID()}`,
          triggerId: () => `bench.${randomUUID()}`,
        },
        'help',
      ),
    ),
    performance.now(),
    helpStats,
  );
  const helpOk = helpStatus === 200 && helpStats.errors === 0;
  return {
    clicks: FLOOD_CLICKS,
    elapsedMs,
    statuses,
    ack: summary(stats),
    busy: stats.busy,
    startMb,
    peakMb,
    afterMb,
    afterPeakMb,
    reachedSlack: arrivals.arrivals.filter(([kind]) => kind === 'silent').length,
    heldOpen: arrivals.silentOpen,
    healthz,
    help: `${helpStatus} in ${fmt(helpStats.acks[0] ?? NaN)} ms`,
    exited: exitedAs(app.child),
    up: exitedAs(app.child) === undefined && healthz === 200 && helpOk,
  };
}

function floodParagraph(f: FloodResult): string {
  const statuses = [...f.statuses].map(([status, n]) => `${n} x ${status}`).join(', ');
  return [
    `Flood (app only): ${f.clicks} signed clicks on a template page's Next button whose response_url never answers (Slack holds each post open), ${FLOOD_CONCURRENCY} at a time, sent in ${(f.elapsedMs / 1000).toFixed(1)} s.`,
    `Acks: ${statuses}; p50 ${fmt(f.ack.p50)}, p99 ${fmt(f.ack.p99)}, max ${fmt(f.ack.max)} ms; ${f.busy} said "busy".`,
    f.exited
      ? `**The app died during the flood (${f.exited})**; its resident memory: ${f.startMb.toFixed(0)} MB before, peak ${Math.max(f.peakMb, f.afterPeakMb).toFixed(0)} MB until then.`
      : `App resident memory: ${f.startMb.toFixed(0)} MB before, peak ${f.peakMb.toFixed(0)} MB during, peak ${f.afterPeakMb.toFixed(0)} MB in the 5 s after, ${f.afterMb.toFixed(0)} MB at the end.`,
    `Posts that reached the silent response_urls: ${f.reachedSlack} (${f.heldOpen} still held open).`,
    `Afterwards: GET /healthz ${f.healthz}; a signed \`help\` command answered ${f.help}.`,
  ].join(' ');
}

function exitedAs(child: ChildProcess): string | undefined {
  if (child.exitCode !== null) return `exit code ${child.exitCode}`;
  return child.signalCode ? `killed by ${child.signalCode}` : undefined;
}

function empty(): Stats {
  return {
    acks: [],
    errors: 0,
    busy: 0,
    sendMs: 0,
    expected: 0,
    delivered: 0,
    toResult: [],
    rssMb: 0,
    cpu: { target: 0, fixtures: 0, loadgen: 0 },
  };
}

function merge(into: Stats, from: Stats): void {
  into.acks.push(...from.acks);
  into.errors += from.errors;
  into.busy += from.busy;
  into.sendMs += from.sendMs;
  into.expected += from.expected;
  into.delivered += from.delivered;
  into.toResult.push(...from.toResult);
  into.rssMb = Math.max(into.rssMb, from.rssMb);
  into.cpu.target += from.cpu.target;
  into.cpu.fixtures += from.cpu.fixtures;
  into.cpu.loadgen += from.cpu.loadgen;
}

function percentiles(values: number[]) {
  const sorted = [...values].sort((x, y) => x - y);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99), max: sorted.at(-1) ?? NaN };
}

function summary(stats: Stats) {
  const results = percentiles(stats.toResult);
  return {
    ...percentiles(stats.acks),
    rate: (stats.acks.length / stats.sendMs) * 1000,
    resultP50: results.p50,
    resultP99: results.p99,
    errors: stats.errors,
  };
}

/** CPU time of the target process itself per command (result delivery included). */
function cpuPerCommand(stats: Stats): string {
  return (stats.cpu.target / (stats.acks.length || 1)).toFixed(2);
}

function cpuPerCommandAll(stats: Stats): string {
  const n = stats.acks.length || 1;
  return `target ${(stats.cpu.target / n).toFixed(3)}, fixtures ${(stats.cpu.fixtures / n).toFixed(3)}, loadgen ${(stats.cpu.loadgen / n).toFixed(3)}`;
}

const perTarget = (totals: Record<TargetName, Stats>, show: (stats: Stats) => string) =>
  `${show(totals.app)} / ${show(totals.peer)} / ${show(totals.bare)}`;
const acks = (s: ReturnType<typeof summary>) => `${fmt(s.p50)} / ${fmt(s.p95)} / ${fmt(s.p99)}`;
const work = (scenario: Scenario, totals: Record<TargetName, Stats>) =>
  SCENARIOS[scenario].result
    ? `${totals.app.delivered}/${totals.app.expected} / ${totals.peer.delivered}/${totals.peer.expected}`
    : '—';
const results = (scenario: Scenario, s: ReturnType<typeof summary>) =>
  SCENARIOS[scenario].result ? `${fmt(s.resultP50)} / ${fmt(s.resultP99)}` : '—';
const fmt = (ms: number) => (Number.isFinite(ms) ? ms.toFixed(1) : '—');
const check = (text: string, ok: boolean) => `${ok ? 'PASS' : 'FAIL'} ${text}`;

if (process.argv.includes('--bulk')) await runBulkBench();
else if (process.argv.includes('--sandbox')) await runSandboxBench();
else if (process.argv.includes('--distribution')) await runDistributionBench();
else if (process.argv.includes('--history')) await runHistoryBench();
else await main();
