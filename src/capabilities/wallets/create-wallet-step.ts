import { z } from 'zod';
import { createWalletAudited } from './create-wallet.js';
import type { CapabilityDeps } from '../../deps.js';
import { type CreateWalletRequest, createWalletRequestSchema } from '../../platform/mint/schemas.js';
import { plainText } from '../../platform/slack/workflow-steps/step-failure.js';
import {
  readStepInputs,
  requestProblemsText,
  stepText,
  stepUserContext,
} from '../../platform/slack/workflow-steps/step-inputs.js';
import type { StepResult, StepRun } from '../../platform/slack/pipeline/step-listener.js';
import { mintClientForStep } from '../../tenancy/mint-accounts/require-account.js';

export const CREATE_WALLET_STEP_INPUTS = {
  customer_id: 'Customer ID',
  acting_user: 'On behalf of',
} as const;

const inputsSchema = z.object({
  customer_id: stepText,
  acting_user: stepUserContext('the person the workflow acts for'),
});

/** "Create wallet" in Workflow Builder: POST /v1/wallet with the customer ID, or none for a new user. */
export function createWalletStep(deps: Pick<CapabilityDeps, 'mintAccounts' | 'store' | 'logger' | 'home'>) {
  return (run: StepRun): Promise<StepResult> => createWallet(deps, run);
}

async function createWallet(
  deps: Pick<CapabilityDeps, 'mintAccounts' | 'store' | 'logger' | 'home'>,
  run: StepRun,
): Promise<StepResult> {
  // Without the workspace's Mint account nothing can be done: the step says how to connect one.
  const account = await mintClientForStep(deps.mintAccounts, run.teamId);
  if ('failed' in account) return account.failed;
  const read = readStepInputs(inputsSchema, run.inputs, CREATE_WALLET_STEP_INPUTS);
  if (!read.ok) return { error: read.error, outcome: 'invalid_input' };
  const customerId = read.value.customer_id?.trim();
  const request: CreateWalletRequest = customerId ? { userId: customerId } : {};
  const checked = createWalletRequestSchema.safeParse(request);
  if (!checked.success)
    return {
      error: requestProblemsText(checked.error, { userId: 'customer_id' }, CREATE_WALLET_STEP_INPUTS),
      outcome: 'invalid_input',
    };

  const actor = { userId: read.value.acting_user, teamId: run.teamId };
  const outcome = await createWalletAudited(
    { mint: account.client, store: deps.store, logger: run.logger },
    actor,
    request,
    run.origin,
  );
  deps.home.refreshIn(actor.teamId, [actor.userId]);
  if (!outcome.ok) return { error: plainText(outcome.reason), outcome: outcome.error ? 'upstream_error' : 'failed' };
  // The spec: without a userId the service creates a new user; with one, the wallet is the customer's.
  return {
    outputs: {
      new_user_created: request.userId === undefined,
      summary: request.userId ? `Wallet created for customer ${request.userId}` : 'Wallet created for a new user',
    },
  };
}
