import { WebClient } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bulkhead } from 'cockatiel';
import { WorkBudget } from '../../../src/platform/slack/admission/work-budget.js';
import { Approvers } from '../../../src/tenancy/workspaces/approvers.js';
import type { BulkContext } from '../../../src/capabilities/bulk/bulk-context.js';
import { BulkWorker } from '../../../src/capabilities/bulk/bulk-worker.js';
import { finishJob } from '../../../src/capabilities/bulk/finish-job.js';
import { GoneWorkspaces } from '../../../src/capabilities/bulk/gone-workspaces.js';
import { progressTickerJob, updateProgress } from '../../../src/capabilities/bulk/progress.js';
import { WORKSPACE_FIXES_CREDENTIALS } from '../../../src/capabilities/bulk/row-disposition.js';
import { Readiness } from '../../../src/platform/ops/health/readiness.js';
import { testLogger } from '../../kit/test-logger.js';
import { MintApiClient } from '../../../src/platform/mint/mint-api-client.js';
import { MockMintService } from '../../../src/operator/mock-mint-api/mock-mint-service.js';
import { refused } from '../../../src/platform/slack/pipeline/request-ended.js';
import type { BulkJob } from '../../../src/platform/store/bulk-jobs/jobs.js';
import { openStore, type Store } from '../../../src/platform/store/store.js';
import type { StoreLocation } from '../../../src/platform/ops/config/config.js';
import { WorkspaceGone } from '../../../src/tenancy/workspaces/workspaces.js';
import { FakeSlack } from '../../kit/fake-slack.js';
import { sqliteDatabase } from '../../kit/store-engines.js';
import { QUICK_BULK_PACE } from './bulk-kit.js';

const SENDING = 'T0SENDS01';
const NO_ACCOUNT = 'T0NOACCT2';
const GONE = 'T0GONE003';
const API_KEY = 'mint-key-of-the-sending-workspace';
const CONNECT_TEXT =
  'This workspace has not connected its Mint account yet: an admin connects it in the app’s Home tab.';

/*
 * The worker with workspaces that cannot be sent for: one without a Mint account (its jobs are paused, saying
 * why) and one without an installation (skipped, logged once), beside one that sends. The store, the Mint
 * service and Slack are real (SQLite, the mock service, the fake Slack); which account and which installation
 * serve a workspace are given here, as the app's MintAccounts and Workspaces would give them.
 */
describe('bulk worker: workspaces without a Mint account or an installation', () => {
  let store: Store;
  /** The database's file: another process's store opens it too. */
  let location: StoreLocation;
  let mint: MockMintService;
  let slack: FakeSlack;
  let logs: string;
  let asked: string[];
  /** Workspaces the worker tried to reach that are gone (no installation). */
  let reached: string[];
  let stopWorker: (() => Promise<void>) | undefined;

  beforeEach(async () => {
    location = sqliteDatabase().location;
    store = openStore(location);
    await store.migrate();
    mint = new MockMintService({ apiKey: API_KEY });
    await mint.listen();
    slack = await new FakeSlack({ testHooks: true }).start();
    logs = '';
    asked = [];
    reached = [];
  });
  afterEach(async () => {
    await stopWorker?.();
    stopWorker = undefined;
    await store.close();
    await mint.close();
    await slack.stop();
  });

  const logLines = () =>
    logs
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg?: string; team?: string });

  function context(): BulkContext {
    const scrub = (text: string) => text;
    const logger = testLogger('info', scrub, (text) => (logs += text));
    const client = new WebClient(slack.botToken, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
    const account = new MintApiClient({ baseUrl: mint.url, apiKey: API_KEY, timeoutMs: 2_000, scrub });
    const work = new WorkBudget(100);
    const readiness = new Readiness({ ping: async () => undefined }, scrub, work);
    readiness.markMigrated();
    return {
      store,
      logger,
      workspaces: {
        slack: async (teamId) => {
          if (teamId === GONE) {
            reached.push(teamId);
            throw new WorkspaceGone(`no installation serves workspace ${teamId}`);
          }
          return client;
        },
      },
      mintAccounts: {
        forTeam: async (teamId) => {
          asked.push(teamId ?? '');
          if (teamId === NO_ACCOUNT) throw refused(CONNECT_TEXT);
          return account; // as the real one: a key may outlive its installation (an uninstall missed)
        },
        statusFor: async (teamId) => (teamId === SENDING ? account.status : undefined),
      },
      approvers: new Approvers({ users: [], userGroups: [] }, client, logger),
      home: { add: () => undefined, refreshIn: () => undefined, refreshWorkspace: () => undefined },
      work,
      readiness,
      botToken: undefined,
      slackApiUrl: slack.apiUrl,
      downloadDeadlineMs: undefined,
      concurrencyIn: () => 2,
      maxConcurrency: 4,
      checkSlots: bulkhead(1),
      scrub,
      mintTimeoutMs: 2_000,
      credentialsFix: WORKSPACE_FIXES_CREDENTIALS,
      gone: new GoneWorkspaces(logger),
      // The app's rules at a tenth of its times (a worker's turn every 50 ms, not every second).
      pace: QUICK_BULK_PACE,
    };
  }

  const running = (teamId: string, rows: number): Promise<BulkJob> => startedIn(store, teamId, rows);
  const startedIn = async (on: Store, teamId: string, rows: number): Promise<BulkJob> => {
    const jobs = on.bulkJobs.inTeam(teamId);
    const { job } = await jobs.createDraft({
      teamId,
      requesterId: 'U0REQUEST',
      kind: 'links',
      sourceName: `${teamId}.csv`,
      columns: ['email'],
      defaults: {},
      rows: Array.from({ length: rows }, (_, i) => ({
        rowNumber: i + 2,
        cells: [`${teamId}-${i}@example.com`],
        request: { email: `${teamId}-${i}@example.com`, nftId: 'n', walletOptions: 'CUSTODIAL' },
      })),
    });
    const started = await jobs.start(job.id, 'U0REQUEST', 'audit-entry');
    if (!started.won) throw new Error('not started');
    await jobs.setMessage(job.id, 'D0REQUEST', messageTs(job));
    return started.job;
  };
  /** Each job's progress message (as if posted at Start), told apart by its ts. */
  const messageTs = (job: Pick<BulkJob, 'id'>) => `1700000000.${job.id.slice(3)}`;

  const until = async <T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 10_000): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = await check();
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${logs}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  it('pauses the jobs of a workspace with no Mint account, saying why, and skips a removed one, logging it once; the others are sent', async () => {
    const ctx = context();
    const sends = await running(SENDING, 6);
    const unconnected = await running(NO_ACCOUNT, 4);
    const gone = await running(GONE, 3);
    const worker = new BulkWorker(ctx);
    stopWorker = worker.start();

    await until(
      async () => ((await store.bulkJobs.inTeam(SENDING).get(sends.id))?.status === 'done' ? true : undefined),
      'the sending workspace’s job to end',
    );
    // The worker looked at the removed workspace on three of its turns since (a turn every workerPollMs).
    const seen = reached.length;
    await until(async () => (reached.length >= seen + 3 ? true : undefined), 'turns');

    expect(
      mint.requestsTo('create_link').map((r) => String((r.body as { email: string }).email).split('-')[0]),
    ).toEqual(Array(6).fill(SENDING));
    expect(await store.bulkJobs.inTeam(NO_ACCOUNT).get(unconnected.id)).toMatchObject({
      status: 'paused',
      changedBy: 'system',
      note: `No Mint account can be used for this workspace: ${CONNECT_TEXT}`,
    });
    // Nothing lost: every row still to be sent once the account is connected and someone resumes.
    expect(await store.bulkJobs.inTeam(NO_ACCOUNT).counts(unconnected.id)).toMatchObject({ pending: 4, sending: 0 });
    const [pause] = await store.audit.list({ operation: 'bulk.pause', limit: 5 });
    expect(pause).toMatchObject({ actorId: 'system', teamId: NO_ACCOUNT, inputs: { jobId: unconnected.id } });
    expect(pause?.detail).toContain(CONNECT_TEXT);
    // Paused once: the worker no longer asks for its account (it has no running job).
    expect(asked.filter((team) => team === NO_ACCOUNT)).toHaveLength(1);

    expect(await store.bulkJobs.inTeam(GONE).get(gone.id)).toMatchObject({ status: 'running' });
    expect(await store.bulkJobs.inTeam(GONE).counts(gone.id)).toMatchObject({ pending: 3, sending: 0 });
    const skipped = logLines().filter(
      (line) => line.msg === 'bulk work of a workspace without an installation is skipped',
    );
    expect(skipped).toHaveLength(1);
    expect(skipped[0]?.team).toBe(GONE);

    // Its progress message is not updated, and its results say why they were not sent; still one log line.
    await stopWorker();
    stopWorker = undefined;
    expect(await updateProgress(ctx, gone)).toBe(true);
    expect((await store.bulkJobs.inTeam(GONE).cancel(gone.id, 'U0REQUEST')).won).toBe(true);
    await finishJob(ctx, gone);
    expect(await store.bulkJobs.inTeam(GONE).get(gone.id)).toMatchObject({
      status: 'done',
      resultsFileId: undefined,
      resultsNote: 'The results file could not be sent: the app is not installed in this workspace.',
    });
    expect(slack.calls.filter((c) => c.params.ts === messageTs(gone))).toEqual([]);
    expect([...slack.calls].filter((c) => JSON.stringify(c.params).includes(gone.id))).toEqual([]);
    expect(
      logLines().filter((line) => line.msg === 'bulk work of a workspace without an installation is skipped'),
    ).toHaveLength(1);
  }, 30_000);

  /*
   * When the worker reads the database: only while a job is at work. Every use of the bulk jobs' repository
   * through the worker's context is counted (each is a statement, or the start of one).
   */
  describe('quiet while no job is at work', () => {
    const QUICK_POLL_MS = QUICK_BULK_PACE.workerPollMs;
    let uses: string[];
    const counted = (): BulkContext => {
      uses = [];
      const bulkJobs = new Proxy(store.bulkJobs, {
        get: (target, name) => {
          uses.push(String(name));
          return Reflect.get(target, name);
        },
      });
      const countedStore = new Proxy(store, {
        get: (target, name) => (name === 'bulkJobs' ? bulkJobs : Reflect.get(target, name)),
      });
      return { ...context(), store: countedStore };
    };
    /** The job's progress message posted in the requester's DM, as at Start (the ticker updates it). */
    const posted = async (job: BulkJob): Promise<BulkJob> => {
      const client = new WebClient(slack.botToken, { slackApiUrl: slack.apiUrl });
      const message = await client.chat.postMessage({ channel: 'U0REQUEST', text: `Bulk job ${job.id}` });
      if (!message.channel || !message.ts) throw new Error('not posted');
      await store.bulkJobs.inTeam(SENDING).setMessage(job.id, message.channel, message.ts);
      return { ...job, messageChannel: message.channel, messageTs: message.ts };
    };
    /** The worker's first look done: it read the finishing jobs last. */
    const firstLook = () => until(async () => (uses.includes('ids') ? true : undefined), 'the first look', 5_000);
    const done = (job: BulkJob) =>
      until(
        async () => ((await store.bulkJobs.inTeam(SENDING).get(job.id))?.status === 'done' ? true : undefined),
        'the job to end',
      );

    it('reads nothing for many of its polls, and sends a job started meanwhile at once (the change feed wakes it)', async () => {
      const ctx = counted();
      const worker = new BulkWorker(ctx);
      store.changes.on('bulk-job', () => worker.wake()); // as the bulk capability subscribes it
      stopWorker = worker.start();
      await firstLook();
      const afterFirstLook = uses.length;
      await new Promise((resolve) => setTimeout(resolve, 10 * QUICK_POLL_MS)); // ten of its polls
      expect(uses.slice(afterFirstLook)).toEqual([]);

      const startedAt = Date.now();
      const job = await running(SENDING, 3);
      await done(job);
      // Woken, not found by a poll: the slow safety look comes every 30 s.
      expect(Date.now() - startedAt).toBeLessThan(10_000);
      expect(mint.requestsTo('create_link')).toHaveLength(3);
    }, 30_000);

    it('the progress ticker reads nothing while the only job is paused and shown so, until a job is given work', async () => {
      const ctx = counted();
      const job = await posted(await running(SENDING, 3));
      expect((await store.bulkJobs.inTeam(SENDING).pause(job.id, 'U0REQUEST')).won).toBe(true);
      let wakes = 0; // the bulk worker's, moved by the change feed's bulk-job topic
      const ticker = progressTickerJob(ctx, () => wakes);
      const updates = () => slack.calls.filter((c) => c.method === 'chat.update' && c.params.ts === job.messageTs);

      // Its turns until the message shows the pause (one update per gap, the last at Start).
      await until(async () => (await ticker.run(), updates().length > 0 ? true : undefined), 'the pause shown');
      expect(updates()).toHaveLength(1);
      expect(JSON.stringify(updates()[0]?.params)).toContain('Paused');
      // It goes quiet at its next look at the ended jobs (one a gap): its turns until then still read.
      await until(async () => {
        const before = uses.length;
        await ticker.run();
        return uses.length === before ? true : undefined;
      }, 'the ticker to go quiet');
      const afterUpToDate = uses.length;
      for (let turn = 0; turn < 10; turn += 1) await ticker.run(); // ten of its turns (one every progressTickMs)
      expect(uses.slice(afterUpToDate)).toEqual([]);
      expect(updates()).toHaveLength(1);

      expect((await store.bulkJobs.inTeam(SENDING).resume(job.id, 'U0REQUEST')).won).toBe(true);
      wakes += 1; // the resume, announced
      await ticker.run();
      expect(uses.slice(afterUpToDate)).toContain('ids');
    });

    it('the progress ticker keeps reading a paused job while its rows in flight settle, then stops', async () => {
      const ctx = counted();
      const job = await posted(await running(SENDING, 3));
      const jobs = store.bulkJobs.inTeam(SENDING);
      const [claimed] = (await jobs.claimNext('another-process', { concurrency: 2 })).rows;
      expect(claimed?.jobId).toBe(job.id);
      expect((await jobs.pause(job.id, 'U0REQUEST')).won).toBe(true);
      const ticker = progressTickerJob(ctx, () => 0);

      await ticker.run();
      await ticker.run();
      const whileSending = uses.length;
      await ticker.run(); // a row is still being sent: its outcome will change what the message shows
      expect(uses.length).toBeGreaterThan(whileSending);

      if (!claimed) throw new Error('no row claimed');
      expect(
        await jobs.settle(job.id, claimed.rowNumber, 'another-process', {
          status: 'done',
          made: { kind: 'link', link: {} },
        }),
      ).toBe(true);
      await until(async () => {
        await ticker.run();
        const before = uses.length;
        await ticker.run();
        return uses.length === before ? true : undefined;
      }, 'the ticker to go quiet');
    });

    it('finds a job it was not told of (another process on the same file) at its catch-up or safety look', async () => {
      const ctx = counted();
      const worker = new BulkWorker(ctx);
      stopWorker = worker.start();
      await firstLook();
      const other = openStore(location);
      try {
        const job = await startedIn(other, SENDING, 2);
        await worker.safetyLookJob().run();
        await done(job);
        expect(mint.requestsTo('create_link')).toHaveLength(2);
      } finally {
        await other.close();
      }
    }, 30_000);
  });
});
