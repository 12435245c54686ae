/*
 * `npm run bench -- --sandbox`: the sandbox as a person uses it (`node dist/sandbox/sandbox.mjs`, what
 * `npm run sandbox` runs), driven in Debian's chromium through playwright-core. Measured:
 *   - start to page ready: from spawning the sandbox to its page drawn in the browser (the browser itself is
 *     started beforehand: it is the person's, not the sandbox's), over BENCH_SANDBOX_STARTS starts;
 *   - from a click or a submit on the page to the result drawn, timed inside the page (performance.now() at the
 *     click, a MutationObserver for the result), for a command that opens a modal, a modal's submission that
 *     creates a wallet, and a template page's Next/Previous, BENCH_SANDBOX_ROUNDS times each;
 *   - the memory of the whole sandbox: resident memory of the sandbox's process and of the app's, summed, sampled
 *     through the run (the peak is reported).
 * The mock Mint service runs at its default latency (none). About 40 seconds.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { CHROMIUM, LAUNCH_ARGS } from '../sandbox/browser-kit.js';
import { benchFolder } from './bench-kit.js';

const STARTS = Number(process.env.BENCH_SANDBOX_STARTS ?? 5);
const ROUNDS = Number(process.env.BENCH_SANDBOX_ROUNDS ?? 40);
const TARGETS = { startMs: 2_000, p95Ms: 300, memoryMb: 300 };
const MAIN = fileURLToPath(new URL('../../dist/sandbox/sandbox.mjs', import.meta.url));

interface Running {
  child: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

async function startSandbox(): Promise<Running> {
  const child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH ?? '',
      SANDBOX_PORT: '0',
      SANDBOX_DATA_DIR: benchFolder('sandbox-bench-'),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const found = /open (http:\/\/\S+)/.exec(out)?.[1];
      if (found) resolve(found);
    });
    void exited.then(() => reject(new Error(`the sandbox exited before it was ready:\n${out}`)));
  });
  return {
    child,
    url,
    stop: async () => {
      child.kill('SIGINT');
      await exited;
    },
  };
}

/** Resident memory of a process and its descendants (the sandbox and the app it started), in MB. */
function treeRssMb(pid: number): number {
  let kb = 0;
  const visit = (id: number) => {
    try {
      kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${id}/status`, 'utf8'))?.[1] ?? 0);
      const children = readFileSync(`/proc/${id}/task/${id}/children`, 'utf8').trim();
      for (const child of children ? children.split(/\s+/) : []) visit(Number(child));
    } catch {
      // the process ended meanwhile
    }
  };
  visit(pid);
  return kb / 1024;
}

/*
 * Runs in the page: triggers the action, then waits (MutationObserver) for an element matching `done` whose
 * text includes `doneText`, and returns the milliseconds in between as the page's own clock measures them.
 */
const IN_PAGE = `async ({ trigger, done, doneText }) => {
  const found = () => [...document.querySelectorAll(done)].some((el) => !doneText || el.textContent.includes(doneText));
  const t0 = performance.now();
  if (trigger.command !== undefined) {
    document.querySelector('#composer-text').value = trigger.command;
    document.querySelector('#composer').requestSubmit();
  } else {
    const el = [...document.querySelectorAll(trigger.selector)].find((e) => !trigger.text || e.textContent.includes(trigger.text));
    el.click();
  }
  await new Promise((resolve) => {
    if (found()) return resolve();
    const observer = new MutationObserver(() => {
      if (found()) {
        observer.disconnect();
        resolve();
      }
    });
    observer.observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
  });
  return performance.now() - t0;
}`;

interface Timing {
  trigger: { command?: string; selector?: string; text?: string };
  done: string;
  doneText?: string;
}

async function timed(page: Page, timing: Timing): Promise<number> {
  return page.evaluate<number>(`(${IN_PAGE})(${JSON.stringify(timing)})`);
}

async function closeModal(page: Page): Promise<void> {
  await page.locator('.modal header .close').click();
  await page.locator('.modal-layer').waitFor({ state: 'hidden' });
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
};
const fmt = (ms: number) => ms.toFixed(1);

export async function runSandboxBench(): Promise<void> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
  const page = await browser.newPage({ viewport: { width: 1280, height: 820 } });
  // The person's browser is open and settled before the sandbox starts: its own start-up is not the sandbox's.
  await page.goto('about:blank');
  await new Promise((resolve) => setTimeout(resolve, 1_000));

  // Start to page ready, several times (each start is a fresh sandbox, data directory and app).
  const starts: Array<{ urlMs: number; pageMs: number }> = [];
  for (let i = 0; i < STARTS; i += 1) {
    const t0 = performance.now();
    const sandbox = await startSandbox();
    const urlMs = performance.now() - t0;
    await page.goto(sandbox.url);
    await page.waitForSelector('body[data-ready]');
    starts.push({ urlMs, pageMs: performance.now() - t0 });
    if (i < STARTS - 1) await sandbox.stop();
    else await measureInteractions(page, sandbox, starts);
  }
  await browser.close();
}

async function measureInteractions(
  page: Page,
  sandbox: Running,
  starts: Array<{ urlMs: number; pageMs: number }>,
): Promise<void> {
  const pid = sandbox.child.pid ?? 0;
  let peakMb = treeRssMb(pid);
  const sampler = setInterval(() => (peakMb = Math.max(peakMb, treeRssMb(pid))), 100);
  const rows: Array<{ name: string; ms: number[] }> = [
    { name: 'command -> modal drawn (`/mintlink link`)', ms: [] },
    { name: 'submit -> result drawn (Create wallet)', ms: [] },
    { name: 'click -> page replaced (templates Next/Previous)', ms: [] },
  ];
  const [openModal, submit, paging] = rows as [(typeof rows)[0], (typeof rows)[0], (typeof rows)[0]];

  await timed(page, {
    trigger: { command: '/mintlink templates demo-contract 5' },
    done: '#content .message',
    doneText: '1–5 of 123',
  });
  for (let i = 0; i < ROUNDS; i += 1) {
    openModal.ms.push(
      await timed(page, { trigger: { command: '/mintlink link' }, done: '.modal h2', doneText: 'Create mint link' }),
    );
    await closeModal(page);

    await timed(page, { trigger: { command: '/mintlink wallet' }, done: '.modal h2', doneText: 'Create wallet' });
    submit.ms.push(
      await timed(page, {
        trigger: { selector: '.modal footer .submit' },
        done: '.modal h2',
        doneText: 'Wallet created',
      }),
    );
    await closeModal(page);

    const forward = i % 2 === 0;
    paging.ms.push(
      await timed(page, {
        trigger: { selector: '#content .message button', text: forward ? 'Next' : 'Previous' },
        done: '#content .message',
        doneText: forward ? '6–10 of 123' : '1–5 of 123',
      }),
    );
  }
  clearInterval(sampler);
  const afterMb = treeRssMb(pid);
  await sandbox.stop();

  const startPage = starts.map((s) => s.pageMs);
  const worstStart = Math.max(...startPage);
  const p95s = rows.map((r) => percentile(r.ms, 95));
  const out = (line = '') => process.stdout.write(`${line}\n`);
  out(`Sandbox (${STARTS} starts, ${ROUNDS} rounds of each interaction, Mint mock at its default latency)`);
  out();
  out('| measure | p50 (ms) | p95 (ms) | max (ms) |');
  out('|---|---|---|---|');
  const urls = starts.map((s) => s.urlMs);
  out(
    `| start -> URL printed | ${fmt(percentile(urls, 50))} | ${fmt(percentile(urls, 95))} | ${fmt(Math.max(...urls))} |`,
  );
  out(
    `| start -> page ready in the browser | ${fmt(percentile(startPage, 50))} | ${fmt(percentile(startPage, 95))} | ${fmt(worstStart)} |`,
  );
  for (const row of rows)
    out(
      `| ${row.name} | ${fmt(percentile(row.ms, 50))} | ${fmt(percentile(row.ms, 95))} | ${fmt(Math.max(...row.ms))} |`,
    );
  out();
  out(
    `Each start, in order (URL printed / page ready, ms): ${starts.map((x) => `${fmt(x.urlMs)} / ${fmt(x.pageMs)}`).join(', ')}`,
  );
  out();
  out(
    `Memory of the whole sandbox (sandbox + app processes): peak ${peakMb.toFixed(0)} MB, after ${afterMb.toFixed(0)} MB`,
  );
  out();
  const verdicts = [
    check(
      `start to page ready < ${TARGETS.startMs} ms (slowest of ${STARTS}: ${fmt(worstStart)} ms)`,
      worstStart < TARGETS.startMs,
    ),
    check(
      `click/submit to rendered result p95 < ${TARGETS.p95Ms} ms (worst p95: ${fmt(Math.max(...p95s))} ms)`,
      Math.max(...p95s) < TARGETS.p95Ms,
    ),
    check(`whole sandbox memory < ${TARGETS.memoryMb} MB (peak ${peakMb.toFixed(0)} MB)`, peakMb < TARGETS.memoryMb),
  ];
  for (const verdict of verdicts) out(verdict);
  process.exitCode = verdicts.some((v) => v.startsWith('FAIL')) ? 1 : 0;
}

const check = (text: string, ok: boolean) => `${ok ? 'PASS' : 'FAIL'} ${text}`;
