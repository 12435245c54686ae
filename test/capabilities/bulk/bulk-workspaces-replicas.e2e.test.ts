import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useFakes } from '../../kit/fakes.js';
import type { RunningApp } from '../../kit/running-app.js';
import { TEST_TEAM_ID, TEST_USER_ID } from '../../kit/slack-ids.js';
import { TEST_DATABASE_URL, postgresDatabase, type TestDatabase } from '../../kit/store-engines.js';
import { DISTRIBUTION_ENV, OTHER_TEAM_ID, OTHER_USER_ID, installWorkspace } from '../../kit/workspaces.js';
import { csvRows, ended, linkCsv } from './bulk-kit.js';
import { BulkUser, rowNumberOf } from './bulk-workspaces-kit.js';

/**
 * In front of the mock Mint service: passes every request on and counts, by workspace, the requests that
 * have arrived and not yet been answered, whichever process sent them.
 */
class InFlightGate {
  readonly inFlight = new Map<string, number>();
  readonly peak = new Map<string, number>();
  peakTotal = 0;
  private total = 0;
  private readonly server: Server;

  constructor(
    private readonly target: string,
    private readonly workspaceOf: (body: unknown) => string,
  ) {
    this.server = createServer((req, res) => {
      void (async () => {
        const text = await bodyOf(req);
        const workspace = this.workspaceOf(text ? JSON.parse(text) : {});
        this.change(workspace, +1);
        res.once('close', () => this.change(workspace, -1));
        try {
          const answer = await fetch(`${this.target}${req.url ?? '/'}`, {
            method: req.method ?? 'GET',
            headers: Object.fromEntries(
              ['x-api-key', 'content-type', 'accept'].flatMap((name) => {
                const value = req.headers[name];
                return typeof value === 'string' ? [[name, value]] : [];
              }),
            ),
            ...(text ? { body: text } : {}),
          });
          res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
          res.end(Buffer.from(await answer.arrayBuffer()));
        } catch {
          res.destroy();
        }
      })();
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private change(workspace: string, by: number): void {
    const now = (this.inFlight.get(workspace) ?? 0) + by;
    this.inFlight.set(workspace, now);
    this.peak.set(workspace, Math.max(this.peak.get(workspace) ?? 0, now));
    this.total += by;
    this.peakTotal = Math.max(this.peakTotal, this.total);
  }
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/* Workspace A's CSV numbers its rows from 1, B's from 1001. */
const workspaceOf = (body: unknown) => (rowNumberOf(body) >= 1000 ? 'B' : 'A');

/**
 * Two processes of the app in distribution mode on one PostgreSQL: the bulk concurrency of a workspace (2 here)
 * holds for both together, and another workspace's job goes on meanwhile.
 */
describe.runIf(TEST_DATABASE_URL)('bulk create: each workspace’s concurrency across two processes', () => {
  const fakes = useFakes();
  let db: TestDatabase;
  let gate: InFlightGate;
  let replicas: RunningApp[] = [];

  beforeAll(async () => {
    db = await postgresDatabase();
    gate = new InFlightGate(fakes.mint.url, workspaceOf);
    const env = {
      ...DISTRIBUTION_ENV,
      DATABASE_URL: db.databaseUrl,
      MINT_API_BASE_URL: await gate.listen(),
      MINT_API_TIMEOUT_MS: '3000',
      BULK_CONCURRENCY: '2',
    };
    replicas = await Promise.all([1, 2].map(() => fakes.startProcess('http', { env })));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await gate?.close();
    await db?.drop();
  });

  it('never has more than 2 of a workspace’s rows at the service at once, by both processes together, while the other workspace’s job progresses', async () => {
    const [first, second] = replicas as [RunningApp, RunningApp];
    await installWorkspace(first, fakes.slack, { teamId: TEST_TEAM_ID });
    await installWorkspace(first, fakes.slack, { teamId: OTHER_TEAM_ID, userId: OTHER_USER_ID });
    // Each row's answer takes this long: both processes take turns at A's places as they free up (a process
    // waits up to 20 ms after its row settled before it claims again, the other asks every 50 to 150 ms).
    fakes.mint.latencyMs = 200;
    const a = new BulkUser(first, fakes.slack, TEST_TEAM_ID, TEST_USER_ID);
    const b = new BulkUser(second, fakes.slack, OTHER_TEAM_ID, OTHER_USER_ID);
    const sentOf = (workspace: string) =>
      fakes.mint.requestsTo('create_link').filter((r) => workspaceOf(r.body) === workspace);

    const big = await a.start(await a.preview(linkCsv(40, 1), { bulk_nft_id: 'nft-a' }));
    await fakes.slack.waitFor(() => sentOf('A').length >= 4, 10_000, 'the first rows of A');
    const small = await b.start(await b.preview(linkCsv(8, 1001), { bulk_nft_id: 'nft-b' }));

    const smallEnd = await ended(fakes.slack, small, 30_000);
    const bigEnd = await ended(fakes.slack, big, 60_000);
    // B's rows, all of them, went while A's were still being sent: B's job did not wait for A's.
    const lastSent = (workspace: string) => Math.max(...sentOf(workspace).map((r) => r.at));
    expect(lastSent('B')).toBeLessThan(lastSent('A'));
    await Promise.all(replicas.map((r) => r.waitForIdle()));

    expect(gate.peak.get('A')).toBe(2);
    expect(gate.peak.get('B')).toBeLessThanOrEqual(2);
    expect(gate.peakTotal).toBeGreaterThan(2); // the two workspaces' rows were at the service together
    expect(new Set(sentOf('A').map((r) => rowNumberOf(r.body))).size).toBe(40);
    expect(sentOf('A')).toHaveLength(40);
    expect(sentOf('B')).toHaveLength(8);
    expect(csvRows(bigEnd.results).filter((r) => r[2] === 'created')).toHaveLength(40);
    expect(csvRows(smallEnd.results).filter((r) => r[2] === 'created')).toHaveLength(8);

    // Both processes sent A's rows: the limit held for the two together, not because one did all the work.
    const store = first.openStore();
    try {
      const rows = await store.bulkJobs.inTeam(TEST_TEAM_ID).rows(big.jobId, { limit: 100 });
      expect(new Set(rows.map((r) => r.claimedBy)).size).toBe(2);
    } finally {
      await store.close();
    }
  }, 90_000);
});
