import { z } from 'zod';
import type { CapabilityDeps } from '../../deps.js';
import { recordHighlights, type MintRecord } from '../../platform/mint/mint-api-client.js';
import {
  type CreateLinkRequest,
  LINK_TYPES,
  WALLET_OPTIONS,
  createLinkRequestSchema,
} from '../../platform/mint/schemas.js';
import { plainText } from '../../platform/slack/workflow-steps/step-failure.js';
import {
  readStepInputs,
  requestProblemsText,
  stepBoolean,
  stepInteger,
  stepText,
  stepTextList,
  stepTimestamp,
  stepUserContext,
} from '../../platform/slack/workflow-steps/step-inputs.js';
import type { StepResult, StepRun } from '../../platform/slack/pipeline/step-listener.js';
import { createLinkAudited } from './create-link.js';
import { linkUrls } from '../../platform/mint/link-urls.js';
import { mintClientForStep } from '../../tenancy/mint-accounts/require-account.js';

/** Input names as declared in manifest.yml, with their titles in Workflow Builder. */
export const CREATE_LINK_STEP_INPUTS = {
  nft_id: 'NFT ID',
  wallet_option: 'Wallet',
  link_type: 'Link type',
  email: 'Recipient email',
  customer_ids: 'Customer IDs',
  max_checkout_quantity: 'Max checkout quantity',
  claim_start: 'Claim starts',
  claim_end: 'Claim ends',
  is_active: 'Active',
  acting_user: 'On behalf of',
} as const;

const inputsSchema = z.object({
  nft_id: stepText,
  wallet_option: stepText,
  link_type: stepText,
  email: stepText,
  customer_ids: stepTextList,
  max_checkout_quantity: stepInteger,
  claim_start: stepTimestamp,
  claim_end: stepTimestamp,
  is_active: stepBoolean,
  acting_user: stepUserContext('the person the workflow acts for'),
});

/** Which input filled each field of the request, to name it when the shared schema refuses the field. */
const INPUT_OF_FIELD: Record<string, keyof typeof CREATE_LINK_STEP_INPUTS> = {
  nftId: 'nft_id',
  walletOptions: 'wallet_option',
  type: 'link_type',
  email: 'email',
  customerId: 'customer_ids',
  maxCheckoutQuantity: 'max_checkout_quantity',
  startDate: 'claim_start',
  endDate: 'claim_end',
  isActive: 'is_active',
};

/**
 * "Create mint link" in Workflow Builder: the modal's request, checked with the same schema, audited the
 * same way (actor: the person the workflow acts for; origin: the workflow), POST /v1/link once.
 */
export function createLinkStep(deps: Pick<CapabilityDeps, 'mintAccounts' | 'store' | 'logger' | 'home'>) {
  return (run: StepRun): Promise<StepResult> => createLink(deps, run);
}

async function createLink(
  deps: Pick<CapabilityDeps, 'mintAccounts' | 'store' | 'logger' | 'home'>,
  run: StepRun,
): Promise<StepResult> {
  // Without the workspace's Mint account nothing can be done: the step says how to connect one.
  const account = await mintClientForStep(deps.mintAccounts, run.teamId);
  if ('failed' in account) return account.failed;
  const read = readStepInputs(inputsSchema, run.inputs, CREATE_LINK_STEP_INPUTS);
  if (!read.ok) return { error: read.error, outcome: 'invalid_input' };
  const inputs = read.value;
  // Unchecked values (a wallet option nobody knows) go to the shared schema, which names what is wrong.
  const checked = createLinkRequestSchema.safeParse({
    nftId: inputs.nft_id ?? '',
    walletOptions: inputs.wallet_option ?? WALLET_OPTIONS[0],
    type: inputs.link_type ?? LINK_TYPES[0],
    isActive: inputs.is_active ?? true,
    ...(inputs.email !== undefined ? { email: inputs.email.trim() } : {}),
    ...(inputs.customer_ids !== undefined ? { customerId: inputs.customer_ids.map((id) => id.trim()) } : {}),
    ...(inputs.max_checkout_quantity !== undefined ? { maxCheckoutQuantity: inputs.max_checkout_quantity } : {}),
    ...(inputs.claim_start !== undefined ? { startDate: inputs.claim_start } : {}),
    ...(inputs.claim_end !== undefined ? { endDate: inputs.claim_end } : {}),
  });
  if (!checked.success)
    return {
      error: requestProblemsText(checked.error, INPUT_OF_FIELD, CREATE_LINK_STEP_INPUTS),
      outcome: 'invalid_input',
    };
  const request: CreateLinkRequest = checked.data;
  if (request.endDate && Date.parse(request.endDate) <= Date.now())
    return {
      error: `Check the step's inputs: “Claim ends” (claim_end) has already passed; choose a time in the future.`,
      outcome: 'invalid_input',
    };

  const actor = { userId: inputs.acting_user, teamId: run.teamId };
  const outcome = await createLinkAudited(
    { mint: account.client, store: deps.store, logger: run.logger },
    actor,
    request,
    run.origin,
  );
  deps.home.refreshIn(actor.teamId, [actor.userId]);
  if (!outcome.ok) return { error: plainText(outcome.reason), outcome: outcome.error ? 'upstream_error' : 'failed' };
  const [url] = linkUrls(outcome.result);
  return { outputs: { ...(url ? { link_url: url } : {}), summary: linkSummary(request, url, outcome.result) } };
}

const CUSTOMERS_NAMED = 5;

/**
 * The link in a line a workflow can post: what was asked for (the NFT, for whom) and its URL. The answer's
 * other fields are not specified, so they are quoted only when it carries no URL, to say what came back.
 */
function linkSummary(request: CreateLinkRequest, url: string | undefined, answer: MintRecord): string {
  const ids = request.customerId ?? [];
  const named = ids.slice(0, CUSTOMERS_NAMED).join(', ');
  const more = ids.length > CUSTOMERS_NAMED ? ` and ${ids.length - CUSTOMERS_NAMED} more` : '';
  const forWhom = [
    ...(ids.length > 0 ? [`customer${ids.length === 1 ? '' : 's'} ${named}${more}`] : []),
    ...(request.email ? [`e-mail ${request.email}`] : []),
  ];
  const what = `Mint link created for NFT ${request.nftId}${forWhom.length > 0 ? ` for ${forWhom.join(' and ')}` : ''}`;
  if (url) return `${what}: ${url}`;
  const pairs = recordHighlights(answer).map(([key, value]) => `${key}: ${value}`);
  return `${what}; the service returned no link URL${pairs.length > 0 ? ` (its answer: ${pairs.join(', ')})` : ''}`;
}
