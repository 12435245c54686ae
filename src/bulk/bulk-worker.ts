import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { linkUrls } from '../mint-api/link-urls.js';
import { MintApiError } from '../mint-api/mint-api-error.js';
import { createLinkRequestSchema, createWalletRequestSchema } from '../mint-api/schemas.js';
import { z } from 'zod';
import type { BulkJob, BulkKind, BulkRow } from '../store/bulk-jobs.js';
import type { BulkContext } from './bulk-context.js';
import { finishJob } from './finish-job.js';
import { rowDisposition } from './row-disposition.js';

/** How often the worker looks for jobs to work on, rows lost by dead processes, and jobs to finish. */
const POLL_MS = 1_000;
/** Drafts nobody started are forgotten after this. */
const DRAFT_TTL_MS = 24 * 3_600_000;
/** A slot whose row was turned away unsent waits this long at least (a service refusing without a pause). */
const AGAIN_AFTER_MS = 1_000;
const LOST_ROW_ERROR = 'sent, but its outcome was not recorded (the app stopped or stalled meanwhile)';

/**
 * Sends the rows of running jobs to the Mint service: at most `concurrency` calls at once in this process,
 * each holding a place in the app's work budget (when the budget is full, the worker waits and interactive
 * requests keep their places). Any number of processes may work on the same job: rows are claimed one by
 * one (pending -> sending, a compare-and-set) and settled by whoever claimed them.
 *
 * While the Mint service asks the app to wait (429, 503 with Retry-After) or is failing (the circuit is
 * open), nothing is claimed; a row refused for those reasons goes back to pending. A row sent but not
 * settled (the process died, or stalled past twice the Mint budget) becomes `unknown`, never sent again.
 */
export class BulkWorker {
  readonly id = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private jobs: Array<Pick<BulkJob, 'id' | 'kind'>> = [];
  private next = 0;
  private stopping = false;
  private sleepers: Array<() => void> = [];
  private draftsPrunedAt = 0;
  private quietUntil = 0;

  constructor(private readonly ctx: BulkContext) {}

  /** Starts the slots and the scheduler; returns a function that stops them after the rows under way. */
  start(): () => Promise<void> {
    // A slot for the highest concurrency the settings allow; those beyond the one in force now stay idle.
    const slots = Array.from({ length: this.ctx.maxConcurrency }, (_, index) => this.slot(index));
    const loops = [this.schedule(), ...slots];
    return async () => {
      this.stopping = true;
      this.wakeAll();
      await Promise.all(loops);
    };
  }

  /** A job was started or resumed here: look for it now rather than at the next poll. */
  nudge(): void {
    this.refresh()
      .catch((error: unknown) => this.warn(error, 'could not look for bulk jobs; the next poll will'))
      .finally(() => this.wakeAll());
  }

  private get halted(): boolean {
    return this.stopping || this.ctx.readiness.isStopping || !this.ctx.readiness.isMigrated;
  }

  private async schedule(): Promise<void> {
    while (!this.stopping) {
      if (!this.halted) {
        try {
          await this.refresh();
          await this.settleLostRows();
          await this.finishJobs();
          await this.pruneDrafts();
        } catch (error) {
          this.warn(error, 'bulk scheduler failed; will try again');
        }
      }
      await this.pause(POLL_MS);
    }
  }

  private async refresh(): Promise<void> {
    if (this.halted) return;
    // The oldest first: a job started earlier is not held back by the newer ones beyond the first 100.
    const jobs = await this.ctx.store.bulkJobs.list({ statuses: ['running'], limit: 100, oldestFirst: true });
    this.jobs = jobs.map(({ id, kind }) => ({ id, kind }));
    if (this.jobs.length > 0) this.wakeAll();
  }

  /** Rows sent by a process that died (or stalled past any Mint call's budget) become unknown. */
  private async settleLostRows(): Promise<void> {
    const leaseMs = 2 * this.ctx.mintTimeoutMs + 2_000;
    const jobs = await this.ctx.store.bulkJobs.markStaleUnknown(leaseMs, LOST_ROW_ERROR);
    for (const jobId of jobs) this.ctx.logger.warn({ jobId }, 'bulk rows sent by a stopped process marked unknown');
  }

  private async finishJobs(): Promise<void> {
    for (const { id } of this.jobs) await this.ctx.store.bulkJobs.finishIfSettled(id);
    for (const id of await this.ctx.store.bulkJobs.ids(['finishing'])) {
      await this.ctx.work.track(finishJob(this.ctx, id));
    }
  }

  private async pruneDrafts(): Promise<void> {
    if (Date.now() - this.draftsPrunedAt < 3_600_000) return;
    this.draftsPrunedAt = Date.now();
    const pruned = await this.ctx.store.bulkJobs.deleteDraftsBefore(new Date(Date.now() - DRAFT_TTL_MS));
    if (pruned > 0) this.ctx.logger.info({ pruned }, 'forgot bulk drafts never started');
  }

  /** One of `concurrency` loops: claim a row, send it, settle it; again. (Idle while `index` is beyond it.) */
  private async slot(index: number): Promise<void> {
    while (!this.stopping) {
      if (index >= this.ctx.concurrency) {
        await this.pause(POLL_MS);
        continue;
      }
      const job = this.halted ? undefined : this.jobs[this.next++ % Math.max(1, this.jobs.length)];
      if (!job) {
        await this.pause(POLL_MS);
        continue;
      }
      const waitMs = this.mintWaitMs();
      if (waitMs > 0) {
        await this.pause(Math.min(waitMs, POLL_MS));
        continue;
      }
      // The last places of the budget are left to interactive requests: a bulk job never turns one away.
      const { work } = this.ctx;
      if (work.limit - work.count <= this.ctx.concurrency || !work.tryAcquire()) {
        await this.pause(50);
        continue;
      }
      let wait = 0;
      try {
        const [row] = await this.ctx.store.bulkJobs.claim(job.id, this.id);
        if (row) wait = await this.send(job.kind, row);
        else this.drained(job.id);
      } catch (error) {
        this.warn(error, 'bulk slot failed; will try again');
        wait = POLL_MS;
      } finally {
        work.release();
      }
      if (wait > 0) await this.pause(wait); // its place in the budget given back meanwhile
    }
  }

  /** The Mint service asked the app to wait, or its circuit is open: nothing is claimed meanwhile. */
  private mintWaitMs(): number {
    const { pausedUntil, circuit } = this.ctx.mintApi.status;
    if (pausedUntil) return pausedUntil.getTime() - Date.now();
    return circuit === 'open' ? 250 : 0;
  }

  /** Sends one claimed row and settles it; returns how long the slot should wait before its next row. */
  private async send(kind: BulkKind, row: BulkRow): Promise<number> {
    const { bulkJobs } = this.ctx.store;
    let outcome: Parameters<typeof bulkJobs.settle>[3];
    try {
      // The request was checked with the row; it is read back through the same schema all the same: a row stored
      // by another version, or changed in the database, fails here and is never sent.
      if (kind === 'links') {
        const request = createLinkRequestSchema.safeParse(row.request);
        if (!request.success) outcome = storedRequestInvalid(request.error);
        else outcome = { status: 'done', resultUrl: linkUrls(await this.ctx.mintApi.createLink(request.data))[0] };
      } else {
        const request = createWalletRequestSchema.safeParse(row.request);
        if (!request.success) outcome = storedRequestInvalid(request.error);
        else {
          await this.ctx.mintApi.createWallet(request.data);
          outcome = { status: 'done' };
        }
      }
    } catch (error) {
      const disposition = rowDisposition(error);
      if (!(error instanceof MintApiError)) {
        this.ctx.logger.error({ err: error, jobId: row.jobId, row: row.rowNumber }, 'bulk row failed unexpectedly');
      }
      if (disposition.kind === 'again' || disposition.kind === 'pause') {
        await bulkJobs.release(row.jobId, row.rowNumber, this.id);
        if (disposition.kind === 'pause') await this.pauseJob(row.jobId, disposition.reason);
        return AGAIN_AFTER_MS;
      }
      outcome = { status: disposition.kind, error: disposition.error };
    }
    if (!(await bulkJobs.settle(row.jobId, row.rowNumber, this.id, outcome))) {
      this.ctx.logger.warn(
        { jobId: row.jobId, row: row.rowNumber, outcome: outcome.status },
        'bulk row settled elsewhere',
      );
    }
    return 0;
  }

  private async pauseJob(jobId: string, reason: string): Promise<void> {
    const paused = await this.ctx.store.transaction(async (tx) => {
      const result = await tx.bulkJobs.pause(jobId, 'system', reason);
      if (result.won)
        await tx.audit.record({
          actorId: 'system',
          teamId: result.job.teamId,
          operation: 'bulk.pause',
          inputs: { jobId },
          outcome: 'paused',
          detail: reason,
        });
      return result;
    });
    if (paused.won) {
      this.ctx.logger.warn({ jobId, reason }, 'bulk job paused by the app');
      this.ctx.home.refresh([paused.job.requesterId]);
    }
  }

  /** No pending row left in this job: stop visiting it until the next refresh, and end it if all is settled. */
  private drained(jobId: string): void {
    this.jobs = this.jobs.filter((j) => j.id !== jobId);
    void this.ctx.store.bulkJobs
      .finishIfSettled(jobId)
      .then((result) => (result.won ? this.ctx.work.track(finishJob(this.ctx, jobId)) : undefined))
      .catch((error: unknown) => this.warn(error, 'could not finish a bulk job; will try again'));
  }

  private pause(ms: number): Promise<void> {
    if (this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.sleepers = this.sleepers.filter((s) => s !== wake);
        resolve();
      }, ms);
      this.sleepers.push(wake);
    });
  }

  private wakeAll(): void {
    for (const wake of this.sleepers.splice(0)) wake();
  }

  private warn(error: unknown, message: string): void {
    if (Date.now() < this.quietUntil) return;
    this.quietUntil = Date.now() + 60_000; // the database away for a while: one line a minute
    this.ctx.logger.warn({ err: error }, message);
  }
}

function storedRequestInvalid(error: z.ZodError): { status: 'failed'; error: string } {
  return { status: 'failed', error: `The stored request is not valid: ${z.prettifyError(error)}` };
}
