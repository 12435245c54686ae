import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DELETIONS } from '../../../src/capabilities/deletions/actions.js';
import { REASON_BLOCK, idsBlock } from '../../../src/capabilities/deletions/deletion-request-form.js';
import type { RunningApp } from '../../kit/running-app.js';
import { useFakes } from '../../kit/fakes.js';
import { TEST_CHANNEL_ID, TEST_USER_ID } from '../../kit/slack-ids.js';
import { messageShortcut } from '../../kit/slack-payloads.js';
import { expectNoRejectedSlackCalls, expectNoSecretsLeaked, textOf } from '../../kit/slack-checks.js';

const APPROVAL = 'C0APPROVE';
const MESSAGE_TS = '1763900000.123456';
const PERMALINK = `https://test.slack.com/archives/${TEST_CHANNEL_ID}/p1763900000123456`;

describe.each(['http', 'socket'] as const)('"Request deletion" on a message (%s mode)', (mode) => {
  const fakes = useFakes();
  let app: RunningApp;
  beforeAll(async () => {
    app = await fakes.startApp(mode, { env: { APPROVAL_CHANNEL_ID: APPROVAL, DELETION_APPROVERS: 'U0APPROV1' } });
  });
  afterAll(async () => {
    expectNoSecretsLeaked(fakes.slack, app);
    await app?.stop();
  });
  afterEach(() => expectNoRejectedSlackCalls(fakes.slack));

  const openFrom = async (text: string) => {
    await app.interact(
      messageShortcut(fakes.slack, DELETIONS.messageShortcuts.requestFromMessage.callbackId, { ts: MESSAGE_TS, text }),
    );
    await fakes.slack.waitForCall('views.open');
    return fakes.slack.lastOpenedView();
  };
  const idsIn = (view: Record<string, any>) =>
    (view.blocks as any[]).find((b) => b.block_id === idsBlock(1))?.element.initial_value as string | undefined;

  it('prefills the form with the IDs in the message and links the message for the approvers', async () => {
    const view = await openFrom('<@U0BOB0001> please delete `cus_1` and `cus_2` (see <https://crm.example.com/x|CRM>)');
    expect(idsIn(view)).toBe('cus_1\ncus_2');
    expect(textOf(view)).toContain(`Asked from a message in <#${TEST_CHANNEL_ID}>`);

    await app.submitView(view, { [REASON_BLOCK]: 'Asked in the support channel' });
    const post = await fakes.slack.waitForCall('chat.postMessage', (c) => c.params.channel === APPROVAL);
    expect(textOf(post.params.blocks)).toContain(`*Context:* <${PERMALINK}|the message it was asked from>`);
    expect(fakes.slack.callsTo('chat.getPermalink')[0]?.params).toMatchObject({
      channel: TEST_CHANNEL_ID,
      message_ts: MESSAGE_TS,
    });
    const requestId = /DR-[A-Z0-9]{6}/.exec(textOf(post.params.blocks))?.[0] ?? '';
    const store = app.openStore();
    try {
      expect((await store.deletionRequests.get(requestId))?.contextUrl).toBe(PERMALINK);
    } finally {
      await store.close();
    }
  });

  it('reads IDs from the words of a message without code: those with a digit or an @, not the prose', async () => {
    const view = await openFrom('Hi team, delete cus_9, 12345 and ann@example.com. Thanks <!here>');
    expect(idsIn(view)).toBe('cus_9\n12345\nann@example.com');
  });

  it('says so when the message names no customer', async () => {
    const view = await openFrom('Can someone help with the deletions?');
    expect(idsIn(view)).toBeUndefined();
    expect(textOf(view)).toContain('No customer IDs were found in the message');
  });

  it('keeps the message through "Add another box"', async () => {
    const view = await openFrom('`cus_box`');
    await app.clickInView(view, DELETIONS.buttons.addIdsBox.actionId);
    const updated = await fakes.slack.viewUpdate(view.id);
    expect(JSON.parse(String(updated.private_metadata))).toMatchObject({ boxes: 2, source: expect.any(String) });
    expect(textOf(updated)).toContain(`Asked from a message in <#${TEST_CHANNEL_ID}>`);
  });

  it('ignores a forged message source: the request goes on without a link', async () => {
    const view = await openFrom('`cus_forged`');
    const metadata = JSON.parse(String(view.private_metadata)) as { boxes: number; source: string };
    const forged = {
      ...view,
      private_metadata: JSON.stringify({ ...metadata, source: metadata.source.replace(TEST_CHANNEL_ID, 'C0SECRET1') }),
    };
    await app.submitView(forged, { [REASON_BLOCK]: 'r' }, TEST_USER_ID);
    const post = await fakes.slack.waitForCall('chat.postMessage', (c) => c.params.channel === APPROVAL);
    expect(textOf(post.params.blocks)).not.toContain('*Context:*');
    expect(fakes.slack.callsTo('chat.getPermalink')).toEqual([]);
  });
});
