/*
 * `npm run bench -- --bulk`: a bulk job of BENCH_BULK_ROWS rows (default 5,000) against the mock Mint service at
 * 200 ms a call, BULK_CONCURRENCY 4, in the real app (npm start's artifact, HTTP mode, SQLite), with the fake
 * Slack and the mock in a process of their own. Measured: the time from Start to the last row settled against
 * the ideal rows x 0.2 s / 4, the app's resident memory while the job runs, and the acks of interactive
 * commands (help and a modal open, at a fixed rate) before and during the job. About 4.5 minutes.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import SQLite from 'better-sqlite3';
import { Pool } from 'undici';
import { BULK_BLOCKS, bulkFormView } from '../../src/capabilities/bulk/bulk-form.js';
import { TEST_MINT_API_KEY, TEST_SIGNING_SECRET, startArguments } from '../kit/app-process.js';
import { freePort } from '../kit/free-port.js';
import { formBody, slashCommand, viewSubmission, type SlackView } from '../kit/slack-payloads.js';
import { slackSignatureHeaders } from '../kit/slack-signature.js';
import { stateValues } from '../kit/view-state.js';
import { benchFolder, firstLine, sleep, stopProcess } from './bench-kit.js';
import { BULK } from '../../src/capabilities/bulk/actions.js';

const ROWS = Number(process.env.BENCH_BULK_ROWS ?? 5_000);
const CONCURRENCY = Number(process.env.BENCH_BULK_CONCURRENCY ?? 4);
const MINT_LATENCY_MS = 200;
/** Interactive commands sent while measuring acks, per second (help and a modal open, in turn). */
const INTERACTIVE_RATE = Number(process.env.BENCH_BULK_INTERACTIVE_RATE ?? 10);
const BASELINE_MS = 10_000;
const IDEAL_MS = (ROWS * MINT_LATENCY_MS) / CONCURRENCY;
const TARGETS = { tolerance: 1.1, ackP99Ms: 1_000, memoryGrowthMb: 50, lastQuarterGrowthMb: 10 };

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

interface Fixtures {
  slackUrl: string;
  apiUrl: string;
  botToken: string;
  mintUrl: string;
  bulkFile: Record<string, unknown>;
}

interface Acks {
  latencies: number[];
  errors: number;
  busy: number;
}

export async function runBulkBench(): Promise<void> {
  const fixturesProcess = spawn(process.execPath, ['--import', 'tsx', here('./fixtures.ts')], {
    env: { ...process.env, MINT_LATENCY_MS: String(MINT_LATENCY_MS), BENCH_BULK_ROWS: String(ROWS) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  process.once('exit', () => fixturesProcess.kill('SIGKILL'));
  const fixtures = JSON.parse(await firstLine(fixturesProcess)) as Fixtures;
  const cwd = benchFolder('mintlink-bulk-bench-');
  const databasePath = join(cwd, 'bench.sqlite');
  const port = await freePort();
  const app = spawn(process.execPath, startArguments(), {
    cwd,
    env: {
      PATH: process.env.PATH ?? '',
      SLACK_BOT_TOKEN: fixtures.botToken,
      SLACK_SIGNING_SECRET: TEST_SIGNING_SECRET,
      SLACK_API_URL: fixtures.apiUrl,
      MINT_API_BASE_URL: fixtures.mintUrl,
      MINT_API_KEY: TEST_MINT_API_KEY,
      DATABASE_URL: `file:${databasePath}`,
      BULK_CONCURRENCY: String(CONCURRENCY),
      LOG_LEVEL: 'info',
      PORT: String(port),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  process.once('exit', () => app.kill('SIGKILL'));
  const base = `http://127.0.0.1:${port}`;
  const pool = new Pool(base, { connections: 32 });
  await waitUntil(async () => (await fetch(`${base}/readyz`).catch(() => undefined))?.status === 200, 20_000);
  const log = (text: string) => process.stderr.write(`[bulk bench] ${text}\n`);

  // Interactive acks with the app at rest, for comparison.
  await interactive(pool, fixtures, 2_000); // warm-up, not counted
  const baseline = await interactive(pool, fixtures, BASELINE_MS);
  log(`baseline acks measured`);

  // The form with the CSV attached, then Start on the preview (the draft's id read from the app's database).
  const form = { ...(bulkFormView() as unknown as SlackView), id: 'VBENCHFORM', hash: 'h1' };
  const values = stateValues(form, {
    [BULK_BLOCKS.file]: { files: [fixtures.bulkFile] },
    [BULK_BLOCKS.nftId]: 'nft-bench',
  });
  const checked = performance.now();
  await interact(pool, viewSubmission(form, values));
  const db = new SQLite(databasePath, { readonly: true, fileMustExist: true });
  const draft = await waitUntil(
    async () =>
      db.prepare(`select id, valid_rows from bulk_jobs where status = 'draft'`).get() as
        { id: string; valid_rows: number } | undefined,
    30_000,
  );
  const checkMs = performance.now() - checked;
  log(`checked ${draft.valid_rows} rows in ${checkMs.toFixed(0)} ms; starting ${draft.id}`);
  const preview: SlackView = {
    id: 'VBENCHPREVIEW',
    hash: 'h2',
    callback_id: BULK.forms.start.callbackId,
    private_metadata: draft.id,
    blocks: [],
  };
  const startedAt = performance.now();
  await interact(pool, viewSubmission(preview, {}));
  // Start writes the draft's rows out in the transaction that makes it running: its rows are there from then.
  await waitUntil(
    async () => db.prepare(`select status from bulk_jobs where id = ?`).get(draft.id) as { status: string } | undefined,
    30_000,
    (job) => job !== undefined && job.status !== 'draft',
  );

  // While it runs: interactive commands at a fixed rate, the app's memory every second, progress every 30 s.
  const memory: Array<{ atMs: number; mb: number }> = [];
  const sampler = setInterval(() => memory.push({ atMs: performance.now() - startedAt, mb: rssMb(app.pid) }), 1_000);
  const counts = () =>
    Object.fromEntries(
      (
        db
          .prepare(`select status, count(*) as n from bulk_rows where job_id = ? group by status`)
          .all(draft.id) as Array<{
          status: string;
          n: number;
        }>
      ).map((r) => [r.status, r.n]),
    ) as Record<string, number>;
  let stop = false;
  const during = interactive(pool, fixtures, Infinity, () => stop);
  let lastLog = performance.now();
  for (;;) {
    const c = counts();
    if ((c.pending ?? 0) === 0 && (c.sending ?? 0) === 0) break;
    if (performance.now() - lastLog > 30_000) {
      lastLog = performance.now();
      log(
        `${((performance.now() - startedAt) / 1000).toFixed(0)} s: ${JSON.stringify(c)}, RSS ${rssMb(app.pid).toFixed(0)} MB`,
      );
    }
    await sleep(250);
  }
  const settledMs = performance.now() - startedAt;
  stop = true;
  const duringJob = await during;
  clearInterval(sampler);
  const finished = await waitUntil(
    async () =>
      db.prepare(`select status, results_file_id from bulk_jobs where id = ?`).get(draft.id) as
        { status: string; results_file_id: string | null } | undefined,
    60_000,
    (job) => job?.status === 'done',
  );
  const doneMs = performance.now() - startedAt;
  const final = counts();
  const mintStats = (await (await fetch(`${fixtures.mintUrl}/__mock/stats`)).json()) as {
    peakInFlight: number;
    requests: Record<string, number>;
  };
  db.close();

  const startMb = memory[0]?.mb ?? NaN;
  const peakMb = Math.max(...memory.map((m) => m.mb));
  const at = (fraction: number) => memory[Math.min(memory.length - 1, Math.floor(fraction * memory.length))]?.mb ?? NaN;
  const lastQuarterGrowth = (memory.at(-1)?.mb ?? NaN) - at(0.75);
  const b = percentiles(baseline.latencies);
  const d = percentiles(duringJob.latencies);
  const verdicts = [
    check(
      `${ROWS} rows settled in ${(settledMs / 1000).toFixed(1)} s <= ideal ${(IDEAL_MS / 1000).toFixed(0)} s x${TARGETS.tolerance} (${((settledMs / IDEAL_MS - 1) * 100).toFixed(1)}% over)`,
      settledMs <= IDEAL_MS * TARGETS.tolerance,
    ),
    check(
      `every row sent once: ${mintStats.requests.create_link ?? 0} create_link requests, ${final.done ?? 0} done, peak ${mintStats.peakInFlight} in flight <= ${CONCURRENCY}`,
      mintStats.requests.create_link === ROWS && final.done === ROWS && mintStats.peakInFlight <= CONCURRENCY,
    ),
    check(
      `flat memory: RSS ${startMb.toFixed(0)} MB at start, peak ${peakMb.toFixed(0)} MB (< +${TARGETS.memoryGrowthMb} MB), ${lastQuarterGrowth.toFixed(1)} MB growth over the last quarter (< ${TARGETS.lastQuarterGrowthMb} MB)`,
      peakMb - startMb < TARGETS.memoryGrowthMb && lastQuarterGrowth < TARGETS.lastQuarterGrowthMb,
    ),
    check(
      `interactive acks during the job: ${duringJob.latencies.length} commands, p99 ${fmt(d.p99)} ms < ${TARGETS.ackP99Ms} ms, ${duringJob.errors} errors, ${duringJob.busy} "busy"`,
      d.p99 < TARGETS.ackP99Ms && duringJob.errors === 0 && duringJob.busy === 0,
    ),
  ];
  const report = [
    `Mintlink bulk benchmark: ${new Date().toISOString()}, Node ${process.version}; ${ROWS} link rows from a CSV file, Mint latency ${MINT_LATENCY_MS} ms, BULK_CONCURRENCY ${CONCURRENCY}, SQLite; interactive commands at ${INTERACTIVE_RATE}/s (help and a modal open in turn) before and during the job.`,
    '',
    '| rows | ideal (s) | Start to last row settled (s) | to results uploaded (s) | over ideal | check of the file (ms) | RSS start / 25% / 50% / 75% / end / peak (MB) | interactive ack p50 / p99 / max (ms) at rest | during the job | errors / busy |',
    '|---|---|---|---|---|---|---|---|---|---|',
    `| ${ROWS} | ${(IDEAL_MS / 1000).toFixed(0)} | ${(settledMs / 1000).toFixed(1)} | ${(doneMs / 1000).toFixed(1)} | ${((settledMs / IDEAL_MS - 1) * 100).toFixed(1)}% | ${checkMs.toFixed(0)} | ${[startMb, at(0.25), at(0.5), at(0.75), memory.at(-1)?.mb ?? NaN, peakMb].map((v) => v.toFixed(0)).join(' / ')} | ${fmt(b.p50)} / ${fmt(b.p99)} / ${fmt(b.max)} | ${fmt(d.p50)} / ${fmt(d.p99)} / ${fmt(d.max)} | ${duringJob.errors} / ${duringJob.busy} |`,
    '',
    `Results file: ${finished.results_file_id ?? 'none'}.`,
    ...verdicts,
  ];
  process.stdout.write(`${report.join('\n')}\n`);
  await stopProcess(app);
  await pool.destroy();
  await stopProcess(fixturesProcess);
  process.exit(verdicts.some((v) => v.startsWith('FAIL')) ? 1 : 0);
}

/** Interactive commands at INTERACTIVE_RATE, alternating help and a modal open, for `durationMs` or until `done`. */
async function interactive(pool: Pool, fixtures: Fixtures, durationMs: number, done = () => false): Promise<Acks> {
  const acks: Acks = { latencies: [], errors: 0, busy: 0 };
  const urls = {
    responseUrl: () => `${fixtures.slackUrl}/response/${randomUUID()}`,
    triggerId: () => `bench.${randomUUID()}`,
  };
  const started = performance.now();
  const sent: Array<Promise<void>> = [];
  for (let i = 0, due = started; due < started + durationMs && !done(); i += 1, due += 1000 / INTERACTIVE_RATE) {
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const since = Math.min(due, performance.now());
    const body = formBody(slashCommand(urls, i % 2 === 0 ? 'help' : ''));
    sent.push(
      post(pool, body).then(
        ({ status, text }) => {
          acks.latencies.push(performance.now() - since);
          if (status !== 200) acks.errors += 1;
          if (/busy/i.test(text)) acks.busy += 1;
        },
        () => {
          acks.latencies.push(performance.now() - since);
          acks.errors += 1;
        },
      ),
    );
  }
  await Promise.all(sent);
  return acks;
}

async function interact(pool: Pool, payload: Record<string, unknown>): Promise<void> {
  const { status, text } = await post(pool, formBody({ payload: JSON.stringify(payload) }));
  if (status !== 200) throw new Error(`the app answered ${status}: ${text}`);
}

async function post(pool: Pool, body: string): Promise<{ status: number; text: string }> {
  const res = await pool.request({
    method: 'POST',
    path: '/slack/events',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...slackSignatureHeaders(body, TEST_SIGNING_SECRET),
    },
    body,
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  return { status: res.statusCode, text: await res.body.text() };
}

async function waitUntil<T>(
  probe: () => Promise<T>,
  timeoutMs: number,
  ok: (value: T) => boolean = (value) => Boolean(value),
): Promise<NonNullable<T>> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (ok(value) && value !== undefined && value !== null) return value;
    if (performance.now() > deadline) throw new Error('timed out');
    await sleep(100);
  }
}

function rssMb(pid: number | undefined): number {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;
  } catch {
    return NaN;
  }
}

function percentiles(values: number[]) {
  const sorted = [...values].sort((x, y) => x - y);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return { p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? NaN };
}

const fmt = (ms: number) => (Number.isFinite(ms) ? ms.toFixed(1) : '—');
const check = (text: string, ok: boolean) => `${ok ? 'PASS' : 'FAIL'} ${text}`;
