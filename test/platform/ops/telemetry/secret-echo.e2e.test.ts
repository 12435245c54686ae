import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REASON_BLOCK } from '../../../../src/capabilities/deletions/deletion-request-form.js';
import { DELETIONS } from '../../../../src/capabilities/deletions/actions.js';
import { LINK_BLOCKS } from '../../../../src/capabilities/links/link-form.js';
import { TEST_MINT_API_KEY } from '../../../kit/app-process.js';
import type { RunningApp } from '../../../kit/running-app.js';
import { useFakes } from '../../../kit/fakes.js';
import { TEST_USER_ID } from '../../../kit/slack-ids.js';
import { expectNoSecretsLeaked, textOf } from '../../../kit/slack-checks.js';

const APPROVAL = 'C0APPROVE';
const BOB = 'U0APPROV1';

/**
 * The Mint service (or Slack) echoing a secret in an answer the app shows or records: every text that goes
 * to Slack or to the database passes one scrubber, whatever path produced it.
 */
describe('secrets echoed back by the service or by Slack', () => {
  const fakes = useFakes();
  let app: RunningApp;
  beforeAll(async () => {
    app = await fakes.startApp('http', { env: { APPROVAL_CHANNEL_ID: APPROVAL, DELETION_APPROVERS: BOB } });
  });
  afterAll(async () => app?.stop());

  async function storedText(): Promise<string> {
    const store = app.openStore();
    try {
      return JSON.stringify([
        await store.audit.list({ limit: 1000 }),
        await store.deletionRequests.list({ limit: 1000 }),
      ]);
    } finally {
      await store.close();
    }
  }

  it('a link answer whose URL and fields carry the API key shows and stores neither', async () => {
    fakes.mint.failNext('create_link', {
      mode: 'status',
      status: 201,
      body: { url: `https://mint.example/claim/1?api_key=${TEST_MINT_API_KEY}`, createdBy: TEST_MINT_API_KEY },
    });
    const { outcome, dm } = await app.submitFormFromCommand('link', { [LINK_BLOCKS.nftId]: 'nft-echo' });
    expect(textOf(outcome)).toContain('Mint link created');
    expect(textOf(outcome)).toContain('api_key=[redacted]');
    expect(textOf(dm)).toContain('[redacted]');
    await app.waitForIdle();
    expect(await storedText()).not.toContain(TEST_MINT_API_KEY);
    expectNoSecretsLeaked(fakes.slack, app);
  });

  it('a template name carrying the API key is not posted to the channel', async () => {
    fakes.mint.contracts.set('contract-echo', [
      {
        id: 't1',
        name: `Leaky ${TEST_MINT_API_KEY}`,
        description: 'x',
        imageUrl: '',
        createdAt: new Date().toISOString(),
      },
    ]);
    const { fields } = await app.command('templates contract-echo');
    const [page] = await fakes.slack.waitForResponse(fields.response_url ?? '');
    expect(textOf(page?.body)).toContain('Leaky [redacted]');
    expectNoSecretsLeaked(fakes.slack, app);
  });

  it("Slack's own error text echoing a token is not shown to the user", async () => {
    fakes.slack.answerNext('views.open', { body: { ok: false, error: `invalid_arguments ${TEST_MINT_API_KEY}` } });
    const { fields: link } = await app.command('link');
    const [told] = await fakes.slack.waitForResponse(link.response_url ?? '');
    expect(String(told?.body.text)).toContain('[redacted]');
    expectNoSecretsLeaked(fakes.slack, app);
  });

  it('a deletion answer echoing the key reaches neither the approval channel, the DM nor the database', async () => {
    fakes.mint.failNext('delete_customers', {
      mode: 'status',
      status: 200,
      body: { deleted: 1, operator: TEST_MINT_API_KEY },
    });
    const { view } = await app.commandOpeningModal('delete cus_echo_1', { user_id: TEST_USER_ID });
    await app.submitView(view, { [REASON_BLOCK]: 'cleanup' });
    const post = await fakes.slack.waitForCall('chat.postMessage', (c) => c.params.channel === APPROVAL);
    const ts = String(post.answer?.ts);
    const opened = fakes.slack.callsTo('views.open').length;
    await app.click(fakes.slack.message(APPROVAL, ts), DELETIONS.buttons.approve.actionId, BOB);
    await fakes.slack.waitFor(() => fakes.slack.callsTo('views.open').length > opened, 3_000, 'the approval modal');
    await app.submitView(fakes.slack.lastOpenedView(), {}, BOB);
    await fakes.slack.waitFor(
      () => textOf(fakes.slack.message(APPROVAL, ts)).includes('*Deleted*'),
      8_000,
      'the outcome',
    );
    await app.waitForIdle();
    expect(textOf(fakes.slack.message(APPROVAL, ts))).toContain('operator: [redacted]');
    expect(await storedText()).not.toContain(TEST_MINT_API_KEY);
    expectNoSecretsLeaked(fakes.slack, app);
  });
});
