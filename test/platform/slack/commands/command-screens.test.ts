import { describe, it } from 'vitest';
import { DELETIONS } from '../../../../src/capabilities/deletions/actions.js';
import { LINK_BLOCKS, linkFormView } from '../../../../src/capabilities/links/link-form.js';
import { DEMO_CONTRACT_ID } from '../../../../src/operator/mock-mint-api/demo-templates.js';
import { useFakes, useListenerApp } from '../../../kit/fakes.js';
import { ephemeralText, modalText } from '../../../kit/screen-text.js';
import { expectScreen } from '../../../kit/screens.js';
import { viewSubmission } from '../../../kit/slack-payloads.js';
import { stateValues } from '../../../kit/view-state.js';
import { LINKS } from '../../../../src/capabilities/links/actions.js';

/*
 * What `/mintlink` answers with text: help, the usage of each subcommand given wrong arguments, and every
 * refusal a person can meet from a command or a shortcut (not set up, not allowed, busy, too slow...).
 * (A workspace without a Mint account: test/capabilities/mint-account/mint-account-screens.test.ts.)
 */

const DAN = 'U0DAN0001';
const SANDBOX_ENV = {
  APPROVAL_CHANNEL_ID: 'C0APPROVE1',
  DELETION_APPROVERS: 'U0BEN0001,U0CHLOE01',
  DELETION_QUORUM: '2',
  AUDIT_VIEWERS: DAN,
};

describe('command screens', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes, { env: SANDBOX_ENV });
  const answer = async (text: string, user?: string) =>
    ephemeralText((await running.app.command(text, user ? { user_id: user } : {})).ack ?? {}, { viewer: user });

  it('help, and a subcommand it does not know', async () => {
    await expectScreen('commands/help--list', await answer('help'));
    await expectScreen('commands/unknown-subcommand--usage', await answer('frobnicate now'));
  });

  it('the usage of templates, given what it cannot read', async () => {
    await expectScreen('commands/templates-usage--no-contract', await answer('templates'));
    await expectScreen('commands/templates-usage--not-a-contract', await answer(`templates ${'x'.repeat(201)}`));
    await expectScreen('commands/templates-usage--bad-limit', await answer(`templates ${DEMO_CONTRACT_ID} 500`));
    await expectScreen('commands/templates-usage--unknown-word', await answer(`templates ${DEMO_CONTRACT_ID} newest`));
    await expectScreen(
      'commands/templates-usage--too-many-words',
      await answer(`templates ${DEMO_CONTRACT_ID} 10 asc more`),
    );
  });

  it('the usage of audit, given what it cannot read', async () => {
    await expectScreen('commands/audit-usage--bad-days', await answer('audit 0', DAN));
    await expectScreen('commands/audit-usage--days-twice', await answer('audit 30 40', DAN));
    await expectScreen('commands/audit-usage--not-a-person', await answer('audit @ana', DAN));
    await expectScreen('commands/audit-usage--two-operations', await answer('audit link.create wallet.create', DAN));
  });

  it('a form that could not open in time', async () => {
    const { fields } = await running.app.command('link', { trigger_id: fakes.slack.triggerId(Date.now() - 5_000) });
    const [told] = await fakes.slack.waitForResponse(fields.response_url ?? '');
    await expectScreen('commands/form--too-slow', ephemeralText(told?.body ?? {}));
    fakes.slack.reset(); // the refused views.open was the point
  });
});

describe('command screens when deletion is not set up', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes, { env: { APPROVAL_CHANNEL_ID: undefined, DELETION_APPROVERS: undefined } });

  it('the command and the shortcut say what is missing', async () => {
    const { ack } = await running.app.command('delete cus_1');
    await expectScreen('commands/delete--not-set-up', ephemeralText(ack ?? {}));
    await running.app.shortcut(DELETIONS.shortcuts.request.callbackId);
    await fakes.slack.waitForCall('views.open');
    await expectScreen('commands/delete-shortcut--not-set-up', modalText(fakes.slack.lastOpenedView()));
  });
});

describe('command screens when the app is busy', () => {
  const fakes = useFakes();
  // The least budget the configuration allows (twice the bulk concurrency), held by two hanging Mint calls.
  const running = useListenerApp(fakes, {
    env: { MAX_WORK_IN_FLIGHT: '2', BULK_CONCURRENCY: '1', MINT_API_TIMEOUT_MS: '1500' },
  });

  it('a command, a shortcut and a form submission are told so', async () => {
    fakes.mint.failNext('list_templates', { mode: 'hang' }, 2);
    await running.app.command(`templates ${DEMO_CONTRACT_ID}`);
    await running.app.command(`templates ${DEMO_CONTRACT_ID}`);
    await fakes.slack.waitFor(() => fakes.mint.requestsTo('list_templates').length === 2, 3_000, 'both Mint calls');

    const { ack } = await running.app.command('link');
    await expectScreen('commands/command--busy', ephemeralText(ack ?? {}));
    await running.app.shortcut(LINKS.shortcuts.create.callbackId);
    await fakes.slack.waitForCall('views.open');
    await expectScreen('commands/shortcut--busy', modalText(fakes.slack.lastOpenedView()));
    const form = { id: 'V0BUSY', callback_id: LINKS.forms.create.callbackId, ...linkFormView() };
    const submitted = await running.app.interact(
      viewSubmission(form, stateValues(form, { [LINK_BLOCKS.nftId]: 'nft-busy' })),
    );
    await expectScreen(
      'commands/form-submission--busy',
      modalText(form, { errors: (submitted as { errors: Record<string, string> }).errors }),
    );
    await running.app.waitForIdle(4_000); // the hanging calls time out: nothing is left running
  });
});
