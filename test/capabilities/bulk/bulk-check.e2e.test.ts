/*
 * Bulk create over each transport, end to end: a file read behind url_private_download, and a job from the
 * command's form run to its end with its results file, as Slack sends them over HTTP (signed) and Socket Mode.
 * Every behaviour of the form and the preview (the shortcut, the errors file too) is in bulk-check.test.ts.
 */
import { afterAll, afterEach, describe, it } from 'vitest';
import { useApp, useFakes } from '../../kit/fakes.js';
import { expectNoRejectedSlackCalls, expectNoSecretsLeaked } from '../../kit/slack-checks.js';
import { expectCampaignFilePreviewed, expectWalletsJobRun } from './bulk-kit.js';

/* From the form to the preview: the CSV by file or by paste, every row checked, nothing sent before Start. */
describe.each(['http', 'socket'] as const)('bulk create: the form and its preview (%s mode)', (mode) => {
  const fakes = useFakes();
  // The Mint calls' time budget is not what these tests are about: long enough for a loaded machine.
  const running = useApp(fakes, mode, { env: { MINT_API_TIMEOUT_MS: '30000' } });
  afterEach(() => expectNoRejectedSlackCalls(fakes.slack));
  afterAll(() => expectNoSecretsLeaked(fakes.slack, running.app));

  it('reads a file behind url_private_download with the bot token and previews it, errors by row and column', async () => {
    await expectCampaignFilePreviewed(running.app, fakes);
  });

  it('creates wallets: userId, or a new user for an empty one (a blank line or bare commas are no row, but count as one)', async () => {
    await expectWalletsJobRun(running.app, fakes);
  });
});
