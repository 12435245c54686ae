import { describe, expect, it } from 'vitest';
import { useApp, useFakes } from '../../kit/fakes.js';
import { eventCallback } from '../../kit/slack-payloads.js';
import { DISTRIBUTION_ENV, inTeam } from '../../kit/workspaces.js';

/*
 * Review probe (issue 22, "Bad input"): a request from a workspace with no installation is refused with one
 * log line, and no stack trace.
 */
describe('a request from a workspace with no installation', () => {
  const fakes = useFakes();
  const running = useApp(fakes, 'http', { env: DISTRIBUTION_ENV });

  it('is refused with one log line, without a stack', async () => {
    const app = running.app;
    const before = app.logLines.length;
    const body = inTeam(
      eventCallback({ type: 'app_home_opened', user: 'U0NOBODY1', channel: 'D0X', tab: 'home' }),
      'T0NOTINST1',
    );
    expect((await app.postSigned('/slack/events', JSON.stringify(body), 'application/json')).status).toBe(200);
    await app.waitForLog((line) => line.msg === 'request from a workspace without an installation: refused');
    await app.waitForIdle();
    const said = app.logLines.slice(before).filter((l) => l.level === 'warn' || l.level === 'error');
    expect(said.map((l) => `${l.level}: ${l.msg}`)).toEqual([
      'warn: request from a workspace without an installation: refused',
    ]);
    expect(JSON.stringify(said)).not.toContain('    at ');
  });
});
