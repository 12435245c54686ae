import type { ModalView } from '@slack/types';
import { WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { preSerialized } from '../../src/slack-api/pre-serialized.js';

describe('preSerialized', () => {
  it('sends exactly the bytes the SDK sends for the view object', async () => {
    const sent: string[] = [];
    const recordingFetch = (async (_url: string, init?: RequestInit) => {
      sent.push(String(init?.body));
      return new Response('{"ok":true}', { status: 200, headers: { 'content-type': 'application/json' } });
    }) as typeof fetch;
    const client = new WebClient('xoxb-test', { fetch: recordingFetch, retryConfig: { retries: 0 } });
    const view: ModalView = {
      type: 'modal',
      callback_id: 'form',
      title: { type: 'plain_text', text: 'Créer & "lier"' },
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'a=b&c=d+e <ok> :x:' } }],
      private_metadata: '{"channel":"C1"}',
    };

    await client.views.open({ trigger_id: 'T1', view });
    await client.views.open({ trigger_id: 'T1', view: preSerialized(view) });

    expect(sent).toHaveLength(2);
    expect(sent[1]).toBe(sent[0]);
    expect(JSON.parse(new URLSearchParams(sent[1]).get('view') ?? '')).toEqual(view);
  });
});
