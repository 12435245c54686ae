import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { z } from 'zod';
import { linkUrls } from '../../platform/mint/link-urls.js';
import type { MintApiClient } from '../../platform/mint/mint-api-client.js';
import { MintApiError } from '../../platform/mint/mint-api-error.js';
import { createLinkRequestSchema, createWalletRequestSchema } from '../../platform/mint/schemas.js';
import { RequestEnded } from '../../platform/slack/pipeline/request-ended.js';
import type { Job } from '../../platform/ops/lifecycle/scheduler.js';
import { SYSTEM_ACTOR, type ClaimedRow, type JobRef } from '../../platform/store/bulk-jobs/jobs.js';
import { jobsIn, type BulkContext } from './bulk-context.js';
import { finishJob } from './finish-job.js';
import { rowDisposition } from './row-disposition.js';

/** Drafts nobody started are forgotten after this. */
const DRAFT_TTL_MS = 24 * 3_600_000;
/** A slot whose row was turned away unsent waits this long at least (a service refusing without a pause). */
const AGAIN_AFTER_MS = 1_000;
/**
 * A workspace with no room (as many of its rows in flight as its limit) is asked again after about this
 * long by a process that sends none of them; one that sends some learns of a free place when its own settle.
 */
const NO_ROOM_RETRY_MS = 100;
/**
 * A slot whose row settled waits up to this long (at random) before it claims again: another process waiting
 * for a place in the same workspace gets its turn too, instead of the place going back to the one that had it.
 */
const HANDOVER_MS = 20;
const LOST_ROW_ERROR = 'sent, but its outcome was not recorded (the app stopped or stalled meanwhile)';
/**
 * A quiet worker still looks this often (one small read, and rows a stopped process left being sent): for a
 * change it could not be told of (a paused job's rows left by a process that died).
 */
const SAFETY_LOOK_MS = 30_000;

/** A workspace with running jobs, as this process takes turns at it. */
interface TeamTurn {
  teamId: string;
  /** The workspace's own Mint account, which its rows are sent with. */
  mint: MintApiClient;
  /** Not asked for rows before this time (it had no room, or its Mint service asked to wait). */
  notBefore: number;
  /** A slot of this process is claiming for it: the other slots leave it alone meanwhile. */
  claiming: boolean;
  /** Its rows this process is sending now. */
  sending: number;
}

/**
 * Sends the rows of running jobs to the Mint service, each with the Mint account of the job's workspace.
 * Each process keeps `maxConcurrency` slots, each holding a place in the app's work budget while it sends
 * (when the budget is nearly full the worker waits and interactive requests keep their places). The slots
 * take turns among the workspaces with running jobs, so that one workspace's big job never holds up
 * another's; within a workspace the oldest job goes first.
 *
 * A workspace's rows are claimed one by one (pending -> sending) with claimNext, which keeps the number of
 * its rows being sent, by all processes together, within its bulk concurrency setting; rows are settled by
 * whoever claimed them. A workspace with no Mint account has its running jobs paused with a note saying why;
 * one without an installation is skipped (logged once).
 *
 * While a workspace's Mint service asks the app to wait (429, 503 with Retry-After) or is failing (the circuit
 * is open), nothing is claimed for it; a row refused for those reasons goes back to pending. A row sent but not
 * settled (the process died, or stalled past twice the Mint budget) becomes `unknown`, never sent again.
 *
 * The worker reads the database only while some job is at work (running or finishing), every
 * `pace.workerPollMs`; with none, it is quiet until woken: a job started, resumed or cancelled on any replica is
 * announced on the change feed (`wake`), a feed that may have missed changes makes it look once
 * (`lookForWork`), and the scheduler's `safetyLookJob` does too, slowly.
 */
export class BulkWorker {
  readonly id = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  /** The workspaces with jobs to work, replaced whole at each refresh from the database (never grows past it). */
  private teams = new Map<string, TeamTurn>();
  private next = 0;
  private stopping = false;
  private sleepers: Array<() => void> = [];
  private quietUntil = 0;
  /** Counts the wakes: a look at the database that a wake came during may have missed what it was woken for. */
  private wakeCount = 0;
  /** No job at work: the worker's own loop waits to be woken, reading nothing. */
  private quiet = false;

  constructor(private readonly ctx: BulkContext) {}

  /** Starts the slots and the worker's own loop; returns a function that stops them after the rows under way. */
  start(): () => Promise<void> {
    const slots = Array.from({ length: this.ctx.maxConcurrency }, () => this.slot());
    const loops = [this.schedule(), ...slots];
    return async () => {
      this.stopping = true;
      this.wakeAll();
      await Promise.all(loops);
    };
  }

  /** A job was given work (started, resumed, cancelled, its rows all settled) on some replica: look for it now. */
  wake(): void {
    this.wakeCount += 1;
    this.refresh()
      .catch((error: unknown) => this.warn(error, 'could not look for bulk jobs; the next look will'))
      .finally(() => this.wakeAll());
  }

  /** How many times the worker was woken (the progress messages' ticker wakes with it). */
  get wakes(): number {
    return this.wakeCount;
  }

  /** When quiet, one small read: a job at work that the worker was not told of wakes it. */
  async lookForWork(): Promise<void> {
    if (!this.quiet || this.halted) return;
    if (await this.ctx.store.bulkJobs.anyAtWork()) this.wake();
  }

  /**
   * The quiet worker's slow look, as a job of the scheduler: rows a process that died left being sent become
   * unknown (a paused job's too), and a job at work it was not told of wakes it.
   */
  safetyLookJob(): Job {
    return {
      name: 'bulk jobs left by stopped processes looked for',
      everyMs: SAFETY_LOOK_MS,
      atStart: false,
      run: async () => {
        if (!this.quiet || this.halted) return; // a worker at work does both every poll
        await this.settleLostRows();
        await this.lookForWork();
      },
      failed: (error) => this.warn(error, 'could not look for bulk jobs; will try again'),
    };
  }

  /** Drafts nobody started are forgotten after a day, by an hourly job of the scheduler. */
  draftsPruneJob(): Job {
    return {
      name: 'bulk drafts never started forgotten',
      everyMs: 3_600_000,
      run: async () => {
        if (this.halted) return;
        const pruned = await this.ctx.store.bulkJobs.deleteDraftsBefore(new Date(Date.now() - DRAFT_TTL_MS));
        if (pruned > 0) this.ctx.logger.info({ pruned }, 'forgot bulk drafts never started');
      },
      failed: (error) => this.warn(error, 'could not forget old bulk drafts; will try again'),
    };
  }

  private get halted(): boolean {
    return this.stopping || this.ctx.readiness.isStopping || !this.ctx.readiness.isMigrated;
  }

  /**
   * The worker's own look at the database (its workspaces, lost rows, jobs to end and finish): every
   * `pace.workerPollMs` while a job is at work; with none, it waits for a wake.
   */
  private async schedule(): Promise<void> {
    while (!this.stopping) {
      const wakes = this.wakeCount;
      let atWork = true;
      if (!this.halted) {
        try {
          await this.refresh();
          await this.settleLostRows();
          atWork = await this.finishJobs();
        } catch (error) {
          this.warn(error, 'bulk scheduler failed; will try again');
        }
      }
      if (this.wakeCount !== wakes) continue; // the look may have read before what it was woken for
      this.quiet = !atWork;
      await this.pause(atWork ? this.ctx.pace.workerPollMs : undefined);
      this.quiet = false;
    }
  }

  /** The workspaces with running jobs, each with its Mint account (what it had here is kept). */
  private async refresh(): Promise<void> {
    if (this.halted) return;
    const teams = new Map<string, TeamTurn>();
    for (const teamId of await this.ctx.store.bulkJobs.runningTeams()) {
      const mint = await this.mintOf(teamId);
      if (!mint) continue;
      const known = this.teams.get(teamId);
      teams.set(
        teamId,
        known ? Object.assign(known, { mint }) : { teamId, mint, notBefore: 0, claiming: false, sending: 0 },
      );
    }
    this.teams = teams;
    if (teams.size > 0) this.wakeAll();
  }

  /**
   * The workspace's Mint account; undefined when its jobs cannot be sent now: it has none (its running jobs
   * are paused, saying so) or it has no installation (skipped, logged once).
   */
  private async mintOf(teamId: string): Promise<MintApiClient | undefined> {
    try {
      // A workspace whose installation is gone (its uninstall missed while the app was down, say) sends nothing,
      // even with its key still stored.
      await this.ctx.workspaces.slack(teamId);
      return await this.ctx.mintAccounts.forTeam(teamId);
    } catch (error) {
      if (error instanceof RequestEnded) {
        await this.pauseAll(teamId, `No Mint account can be used for this workspace: ${error.text}`);
        return undefined;
      }
      if (this.ctx.gone.skip(teamId, error, 'sending bulk rows')) return undefined;
      throw error;
    }
  }

  /** Rows sent by a process that died (or stalled past any Mint call's budget) become unknown. */
  private async settleLostRows(): Promise<void> {
    const leaseMs = 2 * this.ctx.mintTimeoutMs + 2_000;
    const jobs = await this.ctx.store.bulkJobs.markStaleUnknown(leaseMs, LOST_ROW_ERROR);
    for (const jobId of jobs) this.ctx.logger.warn({ jobId }, 'bulk rows sent by a stopped process marked unknown');
  }

  /**
   * Running jobs whose rows are all settled end; ended ones get their results (each in its workspace). Returns
   * whether any job was at work (running or finishing).
   */
  private async finishJobs(): Promise<boolean> {
    const running = await this.ctx.store.bulkJobs.ids(['running'], 500);
    for (const ref of running) await jobsIn(this.ctx, ref.teamId).finishIfSettled(ref.id);
    const finishing = await this.ctx.store.bulkJobs.ids(['finishing']);
    for (const ref of finishing) await this.ctx.work.track(finishJob(this.ctx, ref));
    return running.length > 0 || finishing.length > 0;
  }

  /** One of the slots: take the next workspace's turn, claim a row, send it, settle it; again. */
  private async slot(): Promise<void> {
    while (!this.stopping) {
      const turn = this.halted ? { waitMs: this.ctx.pace.workerPollMs } : this.pick();
      const team = turn.team;
      if (!team) {
        await this.pause(turn.waitMs);
        continue;
      }
      const mintWaitMs = this.mintWaitMs(team.mint);
      if (mintWaitMs > 0) {
        team.notBefore = Date.now() + Math.min(mintWaitMs, this.ctx.pace.workerPollMs);
        continue;
      }
      // The last places of the budget are left to interactive requests: a bulk job never turns one away.
      const { work } = this.ctx;
      if (work.limit - work.count <= this.ctx.maxConcurrency || !work.tryAcquire()) {
        await this.pause(50);
        continue;
      }
      let wait = 0;
      try {
        const row = await this.claim(team);
        if (row) wait = await this.sendClaimed(team, row);
      } catch (error) {
        this.warn(error, 'bulk slot failed; will try again');
        wait = this.ctx.pace.workerPollMs;
      } finally {
        work.release();
      }
      if (wait > 0) await this.pause(wait); // its place in the budget given back meanwhile
    }
  }

  /**
   * The next workspace whose turn it is (round robin), or how long to wait for one: each has no room now or is
   * being claimed for by another slot; with none that has running jobs, until a refresh finds one (no time).
   */
  private pick(): { team?: TeamTurn; waitMs: number | undefined } {
    const teams = [...this.teams.values()];
    if (teams.length === 0) return { waitMs: undefined };
    const now = Date.now();
    let waitMs = this.ctx.pace.workerPollMs;
    for (let i = 0; i < teams.length; i += 1) {
      const team = teams[(this.next + i) % teams.length];
      if (!team || team.claiming) continue;
      if (team.notBefore > now) {
        waitMs = Math.min(waitMs, team.notBefore - now);
        continue;
      }
      this.next = (this.next + i + 1) % teams.length;
      return { team, waitMs: 0 };
    }
    return { waitMs: Math.max(waitMs, 5) };
  }

  /** A row of the workspace, within its limit; none when it has no room (asked again later) or no rows left. */
  private async claim(team: TeamTurn): Promise<ClaimedRow | undefined> {
    team.claiming = true;
    try {
      const claim = await jobsIn(this.ctx, team.teamId).claimNext(this.id, {
        concurrency: this.ctx.concurrencyIn(team.teamId),
      });
      const [row] = claim.rows;
      if (row)
        this.wakeAll(); // there may be room for more: another slot may claim the next place
      else if (claim.atLimit)
        team.notBefore = Date.now() + (team.sending > 0 ? this.ctx.pace.workerPollMs : jitter(NO_ROOM_RETRY_MS));
      else this.drained(team);
      return row;
    } finally {
      team.claiming = false;
    }
  }

  /** Sends a claimed row; the place it held in its workspace is free again after it, for any process. */
  private async sendClaimed(team: TeamTurn, row: ClaimedRow): Promise<number> {
    team.sending += 1;
    try {
      return Math.max(await this.send(team, row), Math.random() * HANDOVER_MS);
    } finally {
      team.sending -= 1;
      team.notBefore = 0;
    }
  }

  /** The Mint service asked the app to wait, or its circuit is open: nothing is claimed meanwhile. */
  private mintWaitMs(mint: MintApiClient): number {
    const { pausedUntil, circuit } = mint.status;
    if (pausedUntil) return pausedUntil.getTime() - Date.now();
    return circuit === 'open' ? 250 : 0;
  }

  /** Sends one claimed row and settles it; returns how long the slot should wait before its next row. */
  private async send(team: TeamTurn, row: ClaimedRow): Promise<number> {
    const { mint, teamId } = team;
    const bulkJobs = jobsIn(this.ctx, teamId);
    let outcome: Parameters<typeof bulkJobs.settle>[3];
    try {
      // The request was checked with the row; it is read back through the same schema all the same: a row stored
      // by another version, or changed in the database, fails here and is never sent.
      if (row.kind === 'links') {
        const request = createLinkRequestSchema.safeParse(row.request);
        if (!request.success) outcome = storedRequestInvalid(request.error);
        else
          outcome = {
            status: 'done',
            resultUrl: linkUrls(await mint.createLink(request.data))[0],
            made: { kind: 'link', link: request.data },
          };
      } else {
        const request = createWalletRequestSchema.safeParse(row.request);
        if (!request.success) outcome = storedRequestInvalid(request.error);
        else {
          await mint.createWallet(request.data);
          outcome = { status: 'done', made: { kind: 'wallet', customerId: request.data.userId } };
        }
      }
    } catch (error) {
      const disposition = rowDisposition(error, this.ctx.credentialsFix);
      if (!(error instanceof MintApiError)) {
        this.ctx.logger.error({ err: error, jobId: row.jobId, row: row.rowNumber }, 'bulk row failed unexpectedly');
      }
      if (disposition.kind === 'again' || disposition.kind === 'pause') {
        await bulkJobs.release(row.jobId, row.rowNumber, this.id);
        if (disposition.kind === 'pause') await this.pauseJob({ id: row.jobId, teamId }, disposition.reason);
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

  /** The app pauses every running job of a workspace, saying why (it has no Mint account the app can use). */
  private async pauseAll(teamId: string, reason: string): Promise<void> {
    for (const ref of await jobsIn(this.ctx, teamId).ids(['running'], 10_000)) await this.pauseJob(ref, reason);
  }

  private async pauseJob(ref: JobRef, reason: string): Promise<void> {
    const paused = await this.ctx.store.transaction(async (tx) => {
      const jobs = ref.teamId === undefined ? tx.bulkJobs : tx.bulkJobs.inTeam(ref.teamId);
      const result = await jobs.pause(ref.id, SYSTEM_ACTOR, reason);
      if (result.won)
        await tx.audit.record({
          actorId: SYSTEM_ACTOR,
          teamId: result.job.teamId,
          operation: 'bulk.pause',
          inputs: { jobId: ref.id },
          outcome: 'paused',
          detail: reason,
        });
      return result;
    });
    if (paused.won) {
      this.ctx.logger.warn({ jobId: ref.id, team: ref.teamId, reason }, 'bulk job paused by the app');
      this.ctx.home.refreshIn(paused.job.teamId, [paused.job.requesterId]);
    }
  }

  /**
   * No pending row left in the workspace's running jobs: stop visiting it until the next refresh, and end those
   * of its jobs whose rows are all settled.
   */
  private drained(team: TeamTurn): void {
    this.teams.delete(team.teamId);
    void this.finishSettled(team.teamId).catch((error: unknown) =>
      this.warn(error, 'could not finish a bulk job; will try again'),
    );
  }

  private async finishSettled(teamId: string): Promise<void> {
    const jobs = jobsIn(this.ctx, teamId);
    for (const ref of await jobs.ids(['running'])) {
      const result = await jobs.finishIfSettled(ref.id);
      if (result.won) await this.ctx.work.track(finishJob(this.ctx, ref));
    }
  }

  /** Waits `ms`, or until woken (wakeAll); undefined: until woken only. */
  private pause(ms: number | undefined): Promise<void> {
    if (this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer =
        ms === undefined
          ? undefined
          : setTimeout(() => {
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

/** Between half and one and a half times `ms`: processes polling the same workspace do not keep in step. */
function jitter(ms: number): number {
  return ms * (0.5 + Math.random());
}

function storedRequestInvalid(error: z.ZodError): { status: 'failed'; error: string } {
  return { status: 'failed', error: `The stored request is not valid: ${z.prettifyError(error)}` };
}
