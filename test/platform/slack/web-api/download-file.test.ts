import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadSlackFile } from '../../../../src/platform/slack/web-api/download-file.js';
import { FakeSlack } from '../../../kit/fake-slack.js';

let slack: FakeSlack;
beforeAll(async () => {
  slack = await new FakeSlack().start();
});
afterAll(() => slack.stop());

const options = () => ({ botToken: slack.botToken, slackApiUrl: slack.apiUrl, maxBytes: 1_000 });

describe('downloadSlackFile', () => {
  it("downloads a user's file with the bot token", async () => {
    const file = slack.hostFile({ content: 'email\nä@b.co\n', name: 'x.csv' });
    const result = await downloadSlackFile(file.url_private_download, options());
    expect(result).toEqual({ ok: true, bytes: Buffer.from('email\nä@b.co\n') });
    expect(slack.fileDownloads.at(-1)).toMatchObject({ fileId: file.id, status: 200 });
  });

  it('stops at the byte limit whatever size the file claims', async () => {
    const file = slack.hostFile({ content: 'x'.repeat(5_000), name: 'big.csv', size: 10 });
    expect(await downloadSlackFile(file.url_private_download, options())).toMatchObject({
      ok: false,
      reason: 'too_large',
    });
  });

  it('says refused, not found, or not a file (a sign-in page)', async () => {
    const file = slack.hostFile({ content: 'a', name: 'a.csv' });
    expect(await downloadSlackFile(file.url_private_download, { ...options(), botToken: 'xoxb-other' })).toMatchObject({
      ok: false,
      reason: 'refused',
      detail: 'HTTP 401',
    });
    slack.hostedFiles.delete(file.id);
    expect(await downloadSlackFile(file.url_private_download, options())).toMatchObject({ reason: 'not_found' });
    const page = slack.hostFile({ content: '<html>sign in</html>', name: 'p.csv', mimetype: 'text/html' });
    expect(await downloadSlackFile(page.url_private_download, options())).toMatchObject({ reason: 'not_a_file' });
  });

  it('never sends the token anywhere but Slack', async () => {
    let sawToken = false;
    const other: Server = createServer((req, res) => {
      sawToken ||= req.headers.authorization !== undefined;
      res.end('a');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(other.address() as AddressInfo).port}/files-pri/T-F1/download/x.csv`;
      expect(await downloadSlackFile(url, options())).toMatchObject({ ok: false, reason: 'not_slack' });
      expect(await downloadSlackFile('https://evil.example/slack.com/x', options())).toMatchObject({
        reason: 'not_slack',
      });
      expect(sawToken).toBe(false);
    } finally {
      other.close();
    }
  });
});
