import { describe, expect, it } from 'vitest';
import { HISTORY } from '../../../src/capabilities/history/actions.js';
import { LINK_BLOCKS } from '../../../src/capabilities/links/link-form.js';
import { useFakes } from '../../kit/fakes.js';
import { installInProcess } from '../../kit/listener-installs.js';
import { textOf } from '../../kit/slack-checks.js';
import { TEST_TEAM_ID, TEST_USER_ID } from '../../kit/slack-ids.js';
import { type SlackView, viewButtonClick } from '../../kit/slack-payloads.js';
import { OTHER_TEAM_ID, OTHER_USER_ID } from '../../kit/workspaces.js';
import { KEY_A, KEY_B, useWorkspaces } from '../../tenancy/mint-accounts/workspace-flow.js';

/*
 * History in distribution mode: two workspaces installed through OAuth, each with its own Mint account, each
 * seeing only what was made in it, even by a person whose id is the same in both (an Enterprise Grid user).
 */
describe('history in distribution mode: each workspace sees only its own rows', () => {
  const fakes = useFakes();
  const flow = useWorkspaces(fakes);

  /** `/mintlink history <words>` as `userId` of `teamId`: the modal it opened. */
  async function history(words: string, userId: string, teamId: string): Promise<SlackView> {
    const { open } = await flow.formFromCommand(`history ${words}`, userId, teamId);
    expect(open.params.view).toMatchObject({ callback_id: HISTORY.forms.search.callbackId });
    return fakes.slack.lastOpenedView();
  }
  const results = (view: SlackView) =>
    (view.blocks as Array<{ accessory?: { value?: string } }>).flatMap((b) =>
      b.accessory?.value ? [b.accessory.value] : [],
    );
  async function makeLink(email: string, userId: string, teamId: string) {
    const { form } = await flow.formFromCommand('link', userId, teamId);
    await flow.submit(form, { [LINK_BLOCKS.nftId]: 'nft-shared', [LINK_BLOCKS.email]: email }, userId, teamId);
    await fakes.slack.waitFor(() => textOf(fakes.slack.view(form.id)).includes('http'), 5_000, 'the link made');
  }

  it('lists, finds and details each workspace’s own links only, and refuses what names the other’s', async () => {
    const tokens = {
      a: await installInProcess(flow.app, fakes.slack, { teamId: TEST_TEAM_ID, userId: TEST_USER_ID }, null),
      b: await installInProcess(flow.app, fakes.slack, { teamId: OTHER_TEAM_ID, userId: OTHER_USER_ID }, null),
    };
    await flow.connect(TEST_USER_ID, KEY_A);
    await flow.connect(OTHER_USER_ID, KEY_B, OTHER_TEAM_ID);
    await makeLink('ann@a.example', TEST_USER_ID, TEST_TEAM_ID);
    // The same person id in B (an Enterprise Grid user has one id in every workspace).
    await makeLink('bea@b.example', TEST_USER_ID, OTHER_TEAM_ID);

    const inA = await history('nft-shared', TEST_USER_ID, TEST_TEAM_ID);
    expect(textOf(inA)).toContain('ann@a.example');
    expect(textOf(inA)).not.toContain('bea@b.example');
    expect(results(inA)).toHaveLength(1);
    const inB = await history('nft-shared', TEST_USER_ID, OTHER_TEAM_ID);
    expect(textOf(inB)).toContain('bea@b.example');
    expect(results(inB)).toHaveLength(1);
    // Each modal opened with its own workspace's token.
    const opens = fakes.slack.callsTo('views.open').slice(-2);
    expect(opens.map((c) => c.token)).toEqual([tokens.a, tokens.b]);

    // From B, Details with the id of A's row (a forged value): nothing of A is shown.
    const pushes = () => fakes.slack.callsTo('views.push');
    const before = pushes().length;
    const [rowOfA] = results(inA);
    const forgedDetails = { ...inB, blocks: inA.blocks };
    await flow.interact(
      viewButtonClick(fakes.slack, forgedDetails, HISTORY.buttons.details.actionId, {}, TEST_USER_ID, rowOfA),
      OTHER_TEAM_ID,
    );
    const pushed = await fakes.slack.waitFor(() => pushes()[before], 5_000, 'the details refused');
    expect(pushed.token).toBe(tokens.b);
    expect(textOf(pushed.params.view)).toContain('There is no such result that you may see in this workspace');
    expect(textOf(pushed.params.view)).not.toContain('ann@a.example');
    // From B, a search on a page whose state is A's (a forged view): refused, nothing read.
    const forgedPage = { ...inB, private_metadata: inA.private_metadata };
    const ack = await flow.submit(forgedPage, {}, TEST_USER_ID, OTHER_TEAM_ID);
    expect(textOf(ack)).toContain('belongs to another workspace');
    expect(textOf(ack)).not.toContain('ann@a.example');
  });
});
