import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';

/*
 * What the benchmarks share: the option lists, the two kinds of load and how they are driven, and the child
 * processes' start and stop.
 */

/** A comma list from an option (BENCH_SCENARIOS, BENCH_RATES...), or its default. */
export const list = (value: string | undefined, fallback: string) =>
  (value ?? fallback)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * A working folder for a benchmark's databases, logs and profiles, removed when the benchmark's process exits
 * (however it ends) unless `keep` (profiles or logs were asked for: the folder is printed and left to read).
 */
export function benchFolder(prefix: string, keep = false): string {
  const folder = mkdtempSync(join(tmpdir(), prefix));
  if (!keep) process.once('exit', () => rmSync(folder, { recursive: true, force: true }));
  return folder;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A closed loop (so many senders, each sending its next command when the last is acked), or a fixed rate. */
export type Load =
  { kind: 'closed'; concurrency: number; commands: number } | { kind: 'rate'; rate: number; durationMs: number };

/**
 * Sends the load's commands through `send`, given when each was sent (closed loop) or due (fixed rate: a
 * command late because the machine is busy counts from when it was due); resolves with how long the sending took.
 */
export async function drive(load: Load, send: (since: number) => Promise<void>): Promise<number> {
  const started = performance.now();
  if (load.kind === 'closed') {
    let left = load.commands;
    const sender = async () => {
      while (left > 0) {
        left -= 1;
        await send(performance.now());
      }
    };
    await Promise.all(Array.from({ length: load.concurrency }, sender));
  } else {
    const sent: Array<Promise<void>> = [];
    for (let due = started; due < started + load.durationMs; due += 1000 / load.rate) {
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      sent.push(send(Math.min(due, performance.now()))); // timers may wake early
    }
    await Promise.all(sent);
  }
  return performance.now() - started;
}

/** SIGTERM, and at most graceMs for the process to exit. */
export async function stopProcess(child: ChildProcess, graceMs = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(graceMs)]);
}

/** The first line a child process writes (the fixtures say where they listen in it). */
export async function firstLine(child: ChildProcess): Promise<string> {
  for await (const line of createInterface({ input: child.stdout! })) return line;
  throw new Error('the fixtures process exited before it was ready');
}
