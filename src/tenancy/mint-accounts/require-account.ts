import type { ModalView } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { Subcommand } from '../../platform/slack/commands/command-registry.js';
import type { MintApiClient } from '../../platform/mint/mint-api-client.js';
import type { Ended, FormRequest } from '../../platform/slack/pipeline/listen.js';
import { RequestEnded } from '../../platform/slack/pipeline/request-ended.js';
import type { StepResult } from '../../platform/slack/pipeline/step-listener.js';
import { section } from '../../platform/blocks/blocks.js';
import { modal } from '../../platform/blocks/modal.js';
import { openModal } from '../../platform/blocks/open-modal.js';
import type { MintAccounts } from './mint-accounts.js';
import { NoMintAccount, UnreadableMintAccount } from './not-connected.js';

/*
 * Everything that opens a form for a Mint operation first makes sure the workspace has a Mint account: a
 * person is told how to connect one at once, rather than after filling in a form for nothing. The check reads
 * a cache (or one row), well within Slack's 3 seconds for the ack and the trigger.
 */

/** A subcommand that needs the workspace's Mint account: without one, the command is answered how to connect. */
export function needingMintAccount(subcommand: Subcommand, accounts: Pick<MintAccounts, 'forTeam'>): Subcommand {
  return {
    ...subcommand,
    run: async (context) => {
      await accounts.forTeam(context.teamId); // throws before the ack: the answer is the refusal
      return subcommand.run(context);
    },
  };
}

interface FormOpening {
  body: { trigger_id: string };
  client: WebClient;
  /** The request's workspace (request-workspace.ts). */
  teamId: string;
}

/**
 * A shortcut or button (acknowledged already) that opens `form` when the workspace has a Mint account, and
 * otherwise a modal that says how to connect one, with the button for admins: the person clicked to get a
 * modal, and a modal is where they look.
 */
export function openFormNeedingMintAccount(accounts: Pick<MintAccounts, 'forTeam'>, form: () => ModalView) {
  return async ({ body, client, teamId }: FormOpening): Promise<Ended> => {
    try {
      await accounts.forTeam(teamId);
    } catch (error) {
      if (!(error instanceof RequestEnded)) throw error;
      await openModal(client, body.trigger_id, noAccountModal(error));
      return error.outcome;
    }
    await openModal(client, body.trigger_id, form());
  };
}

/**
 * For a form submitted: the workspace's Mint client; without an account (removed since the form opened), the
 * modal is replaced by how to connect one, and undefined comes back (the request was refused).
 */
export async function withMintAccount(
  accounts: Pick<MintAccounts, 'forTeam'>,
  teamId: string | undefined,
  ack: FormRequest['ack'],
): Promise<MintApiClient | undefined> {
  try {
    return await accounts.forTeam(teamId);
  } catch (error) {
    if (!(error instanceof RequestEnded)) throw error;
    await ack({ response_action: 'update', view: noAccountModal(error) });
    return undefined;
  }
}

/** The refusal as a modal of its own (closing it closes everything). */
export function noAccountModal(ended: RequestEnded): ModalView {
  return modal({
    title: 'No Mint account',
    close: 'Close',
    clearOnClose: true,
    blocks: ended.blocks ?? [section(ended.text)],
  });
}

/**
 * The workspace's Mint client for a workflow step, or the step's error telling how to connect an account (in
 * plain text, as Workflow Builder shows it).
 */
export async function mintClientForStep(
  accounts: Pick<MintAccounts, 'forTeam'>,
  teamId: string | undefined,
): Promise<{ client: MintApiClient } | { failed: StepResult }> {
  try {
    return { client: await accounts.forTeam(teamId) };
  } catch (error) {
    if (error instanceof NoMintAccount || error instanceof UnreadableMintAccount)
      return { failed: { error: error.stepText, outcome: error.outcome } };
    throw error;
  }
}
