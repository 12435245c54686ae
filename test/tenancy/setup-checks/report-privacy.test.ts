import { describe, expect, it } from 'vitest';
import { databaseProblemForSlack } from '../../../src/tenancy/setup-checks/database-check.js';
import { shownUrl, withoutUserinfo } from '../../../src/tenancy/setup-checks/setup-items.js';
import { checkBotToken, checkSocketMode } from '../../../src/tenancy/setup-checks/slack-checks.js';
import { WebClient } from '@slack/web-api';
import { freePort } from '../../kit/free-port.js';

/** An error shaped like node-postgres's and Node.js's (a code, a message). */
const failure = (code: string, message = `failure ${code}`) => Object.assign(new Error(message), { code });

describe('what the setup reports never show', () => {
  it('shows no host, port, file path or URL of the database in Slack, in the doctor’s words', () => {
    const postgres = { engine: 'postgres' as const, url: 'postgres://app:pw-SECRET-77@db.internal:6543/mint' };
    expect(databaseProblemForSlack(failure('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.9:6543'), postgres)).toBe(
      'nothing listens at the database server (ECONNREFUSED)',
    );
    expect(databaseProblemForSlack(failure('ENOTFOUND'), postgres)).toBe(
      'the database server’s host not found (ENOTFOUND)',
    );
    expect(databaseProblemForSlack(failure('3D000'), postgres)).toBe(
      'database "mint" does not exist on the database server (3D000)',
    );
    const sqlite = { engine: 'sqlite' as const, path: '/srv/mintlink/data/mintlink.sqlite' };
    const text = databaseProblemForSlack(failure('SQLITE_READONLY', 'attempt to write a readonly database'), sqlite);
    expect(text).not.toContain('/srv/mintlink');
    expect(text).toMatch(/^the database file /);
  });

  it('never prints the userinfo of a URL', () => {
    expect(shownUrl('https://ops:hunter2@slack.example.com/api/')).toBe('https://slack.example.com/api/');
    expect(shownUrl('https://slack.com/api/')).toBe('https://slack.com/api/');
    expect(withoutUserinfo('cannot fetch http://a:b@host/x')).toBe('cannot fetch http://host/x');
  });

  it('names Slack’s address without its credentials to the operator, and not at all in Slack', async () => {
    const apiUrl = `http://ops:hunter2@127.0.0.1:${await freePort()}/api/`; // nothing listens there
    const client = new WebClient('xoxb-1-2-3', { slackApiUrl: apiUrl, retryConfig: { retries: 0 } });
    const operator = await checkBotToken(client, 'operator', apiUrl);
    expect(operator.item.summary).toMatch(
      /^Slack bot token: could not reach Slack at http:\/\/127\.0\.0\.1:\d+\/api\/ /,
    );
    const socket = await checkSocketMode(client, apiUrl);
    for (const item of [operator.item, socket]) expect(JSON.stringify(item)).not.toContain('hunter2');
    const inSlack = await checkBotToken(client, 'workspace', undefined);
    expect(inSlack.item.summary).toMatch(/^Slack bot token: could not reach Slack \(/);
  });
});
