import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { MockMintService } from '../mock-mint-api/mock-mint-service.js';
import { startApp, type AppChild } from './app-child.js';
import { FakeSlack } from './fake-slack.js';
import { Interactions } from './interactions.js';
import { readManifestFacts } from './manifest-facts.js';
import { PageServer } from './page-server.js';
import { APPROVALS, APPROVERS, AUDIT_VIEWERS, GENERAL, SANDBOX_QUORUM } from './people.js';
import { AppLink } from './to-app.js';
import { Workspace } from './workspace.js';

/*
 * The sandbox: the app (the built bundle, in HTTP mode, SQLite in the sandbox's data directory), the mock
 * Mint service with its demo templates, the Slack stand-in, and the page, all on loopback. Everything it
 * hands the app is made up here: the tokens, the signing secret and the Mint API key are random for each
 * start and never leave this machine.
 */

export interface SandboxOptions {
  /** Port of the page; 0 picks a free one. */
  port: number;
  host: string;
  /** Where the app keeps its SQLite database and its log; emptied at start. */
  dataDir: string;
  /** Latency of the mock Mint service (its default is none). */
  mintLatencyMs?: number;
}

export interface Sandbox {
  url: string;
  mint: MockMintService;
  slack: FakeSlack;
  workspace: Workspace;
  appPid: number;
  stop(): Promise<void>;
}

/** Raised when the page's port is taken: the message is one line saying which port and what to do. */
export class PortInUseError extends Error {}

export async function startSandbox(options: SandboxOptions): Promise<Sandbox> {
  const manifest = readManifestFacts();
  const slack = new FakeSlack();
  slack.botToken = `xoxb-sandbox-${randomBytes(12).toString('hex')}`;
  const workspace = new Workspace(slack);
  const signingSecret = randomBytes(16).toString('hex');
  const mintKey = `sandbox-${randomBytes(12).toString('hex')}`;
  const appPort = await freePort();
  const link = new AppLink(`http://127.0.0.1:${appPort}/slack/events`, signingSecret);
  const interactions = new Interactions(workspace, slack, link, manifest);
  const page = new PageServer({ workspace, slack, interactions, manifest });

  // The page's port first: if it is taken, nothing else has been started.
  try {
    await page.listen(options.port, options.host);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new PortInUseError(
        `Port ${options.port} on ${options.host} is already in use: start the sandbox on another port, e.g. SANDBOX_PORT=${options.port + 1} npm run sandbox`,
      );
    throw error;
  }
  const mint = new MockMintService({
    apiKey: mintKey,
    ...(options.mintLatencyMs !== undefined ? { latencyMs: options.mintLatencyMs } : {}),
  });
  let app: AppChild | undefined;
  try {
    await slack.start();
    const mintUrl = await mint.listen(0, '127.0.0.1');
    seedWorkspace(workspace, mint);
    rmSync(options.dataDir, { recursive: true, force: true });
    mkdirSync(options.dataDir, { recursive: true });
    app = await startApp(
      {
        SLACK_BOT_TOKEN: slack.botToken,
        SLACK_SIGNING_SECRET: signingSecret,
        SLACK_API_URL: slack.apiUrl,
        PORT: String(appPort),
        MINT_API_BASE_URL: mintUrl,
        MINT_API_KEY: mintKey,
        DATABASE_URL: `file:${options.dataDir}/mintlink.sqlite`,
        APPROVAL_CHANNEL_ID: APPROVALS.id,
        DELETION_APPROVERS: APPROVERS.join(','),
        DELETION_QUORUM: String(SANDBOX_QUORUM),
        AUDIT_VIEWERS: AUDIT_VIEWERS.join(','),
        LOG_LEVEL: 'info',
      },
      options.dataDir,
    );
  } catch (error) {
    await Promise.allSettled([page.close(), slack.stop(), mint.close(), app?.stop()]);
    throw error;
  }
  const running = app;
  let stopped: Promise<void> | undefined;
  return {
    url: page.url,
    mint,
    slack,
    workspace,
    appPid: running.pid,
    stop: () =>
      (stopped ??= (async () => {
        await running.stop();
        await Promise.allSettled([page.close(), slack.stop(), mint.close()]);
      })()),
  };
}

/** A little history, so the page does not open on empty channels: messages to try the message shortcut on. */
function seedWorkspace(workspace: Workspace, mint: MockMintService): void {
  for (const id of ['cus_1001', 'cus_1002', 'cus_1003', 'cus_2001', 'cus_2002']) mint.customers.add(id);
  workspace.post({
    channel: GENERAL.id,
    from: 'U0CHLOE01',
    text: 'Welcome to the Mintlink sandbox! Type `/mintlink help` below, or open the ⚡ menu for the shortcuts.',
  });
  workspace.post({
    channel: GENERAL.id,
    from: 'U0EVE0001',
    text: 'Support ticket #4411: customers `cus_1001` and `cus_1002` asked us to close their accounts.',
  });
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
