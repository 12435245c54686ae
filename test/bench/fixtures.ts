/*
 * The benchmark's fake Slack and mock Mint service, in a process of their own so that the load generator
 * measures the apps, not its own event loop serving them. Prints their addresses as one JSON line.
 */
import { MockMintService } from '../../src/operator/mock-mint-api/mock-mint-service.js';
import { TEST_MINT_API_KEY } from '../kit/app-process.js';
import { FakeSlack } from '../kit/fake-slack.js';
import { benchWorkspaces } from './bench-workspaces.js';

const slack = await new FakeSlack({ testHooks: true }).start(); // the /__bench/ routes, silent response URLs
slack.recording = false; // no records, no Block Kit checks: Slack's cost, not the app's
slack.benchTracking = true; // arrivals of views.open and response_url posts, for work delivered and time to result
const mint = new MockMintService({ apiKey: TEST_MINT_API_KEY, latencyMs: Number(process.env.MINT_LATENCY_MS ?? 1000) });
await mint.listen();
// The bulk benchmark's CSV (BENCH_BULK_ROWS rows), shared by a user in the bulk form: its file object.
const rows = Number(process.env.BENCH_BULK_ROWS ?? 0);
const bulkFile =
  rows > 0
    ? slack.hostFile({
        name: `bench-${rows}.csv`,
        content: ['email', ...Array.from({ length: rows }, (_, i) => `bench${i + 1}@example.com`)].join('\n'),
      })
    : undefined;
// The distribution benchmark's installed workspaces (BENCH_WORKSPACES of them): each bot token issued by this
// Slack as its OAuth exchange would have, so every call the app makes for a workspace carries a token it knows.
const workspaces = benchWorkspaces(Number(process.env.BENCH_WORKSPACES ?? 0));
for (const w of workspaces)
  slack.issuedTokens.set(w.botToken, {
    teamId: w.teamId,
    enterpriseId: undefined,
    botUserId: w.botUserId,
    botId: w.botId,
  });
process.stdout.write(
  `${JSON.stringify({ slackUrl: slack.url, apiUrl: slack.apiUrl, botToken: slack.botToken, mintUrl: mint.url, bulkFile, workspaces })}\n`,
);
process.on('SIGTERM', () => void Promise.all([mint.close(), slack.stop()]).then(() => process.exit(0)));
