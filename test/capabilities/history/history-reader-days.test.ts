import { describe, expect, it } from 'vitest';
import { SEARCH_BLOCKS as B } from '../../../src/capabilities/history/history-modal.js';
import { useFakes, useListenerApp } from '../../kit/fakes.js';
import { expectNoRejectedSlackCalls, textOf } from '../../kit/slack-checks.js';
import { TEST_TEAM_ID } from '../../kit/slack-ids.js';

/*
 * History's From / To are days of the reader's time zone, as Slack's users.info gives it (the dates it shows
 * are in that zone too); UTC days, said so on the form, when Slack does not give it.
 */

const DAN = 'U0DAN0001'; // audit viewer, in Asia/Tokyo (UTC+9)
const EVE = 'U0EVE0001'; // no rights, in UTC: her own rows
const NOBODY = 'U0NOBODY1'; // unknown to Slack: users.info answers user_not_found

type View = { id: string; hash: string; private_metadata?: string; [key: string]: unknown };

describe('history days in the reader’s time zone', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes, { env: { AUDIT_VIEWERS: DAN } });

  /** Eve's four links, a minute either side of the two Tokyo midnights that begin and end 5 March 2024. */
  async function seed(): Promise<Record<string, string>> {
    const store = running.app.openStore();
    await store.history.pruneBatch(new Date(Date.now() + 3_600_000), 100_000);
    const made: Record<string, string> = {};
    for (const at of ['2024-03-04T14:59:00Z', '2024-03-04T15:00:00Z', '2024-03-05T14:59:00Z', '2024-03-05T15:00:00Z']) {
      const entry = await store.audit.start(
        {
          actorId: EVE,
          teamId: TEST_TEAM_ID,
          operation: 'link.create',
          inputs: { nftId: `nft-${at}` },
          history: { kind: 'link', how: 'form', link: { nftId: `nft-${at}` } },
        },
        new Date(at),
      );
      await store.audit.complete(entry.id, 'succeeded', 'https://mint.example/l/lnk_1');
      made[at] = entry.id;
    }
    return made;
  }
  async function openHistory(user: string): Promise<View> {
    const { fields } = await running.app.command('history', { user_id: user });
    await fakes.slack.waitForCall('views.open', (c) => c.params.trigger_id === fields.trigger_id);
    return fakes.slack.lastOpenedView();
  }
  const resultsOf = (view: View) =>
    (view.blocks as Array<{ accessory?: { value?: string } }>).flatMap((b) =>
      b.accessory?.value ? [b.accessory.value] : [],
    );
  async function fifthOfMarch(user: string): Promise<View> {
    const view = await openHistory(user);
    const ack = await running.app.submitView(view, { [B.from]: '2024-03-05', [B.to]: '2024-03-05' }, user);
    return (ack as { view: View }).view;
  }

  it('gives a reader in Asia/Tokyo the rows of that Tokyo day, and one in UTC those of the UTC day', async () => {
    const made = await seed();
    const tokyo = await fifthOfMarch(DAN);
    expect(textOf(tokyo)).toContain('From (day in Asia/Tokyo)');
    expect(textOf(tokyo)).toContain('To (day in Asia/Tokyo, included)');
    expect(resultsOf(tokyo)).toEqual([made['2024-03-05T14:59:00Z'], made['2024-03-04T15:00:00Z']]);
    const utc = await fifthOfMarch(EVE);
    expect(textOf(utc)).toContain('From (day in UTC)');
    expect(resultsOf(utc)).toEqual([made['2024-03-05T15:00:00Z'], made['2024-03-05T14:59:00Z']]);
    expectNoRejectedSlackCalls(fakes.slack);
  });

  it('refuses, beside the field, a day outside 2000 to 2099 and a To before the From', async () => {
    const view = await openHistory(DAN);
    const errorsOf = async (from: string, to: string) =>
      ((await running.app.submitView(view, { [B.from]: from, [B.to]: to }, DAN)) as { errors?: Record<string, string> })
        .errors;
    expect(await errorsOf('0050-06-15', '2024-03-05')).toEqual({ [B.from]: 'Choose a day between 2000 and 2099.' });
    expect(await errorsOf('2024-03-05', '9999-12-31')).toEqual({ [B.to]: 'Choose a day between 2000 and 2099.' });
    expect(await errorsOf('2024-03-06', '2024-03-05')).toEqual({
      [B.to]: 'This day comes before the first one: choose a later one.',
    });
  });

  it('uses UTC days, and says so, when Slack does not give the reader’s time zone', async () => {
    await seed();
    fakes.slack.unknownUsers.add(NOBODY);
    const view = await openHistory(NOBODY);
    expect(textOf(view)).toContain('From (UTC day)');
    expect(textOf(view)).toContain('Slack did not give your time zone, so these days are in UTC.');
    expect(fakes.slack.failedCalls.map((c) => c.method)).toContain('users.info');
    expect(running.app.logs).toContain('could not read a user’s time zone from Slack');
  });
});
