import { z } from 'zod';
import type { CapabilityDeps } from '../../deps.js';
import { MintApiError } from '../../platform/mint/mint-api-error.js';
import { listTemplatesRequestSchema } from '../../platform/mint/schemas.js';
import { mintFailureText } from '../../platform/slack/workflow-steps/step-failure.js';
import {
  readStepInputs,
  requestProblemsText,
  stepInteger,
  stepText,
} from '../../platform/slack/workflow-steps/step-inputs.js';
import type { StepResult, StepRun } from '../../platform/slack/pipeline/step-listener.js';
import { DEFAULT_LIMIT, DEFAULT_ORDER } from './page-state.js';
import { mintClientForStep } from '../../tenancy/mint-accounts/require-account.js';
import { templateFields } from './template-fields.js';

export const LIST_TEMPLATES_STEP_INPUTS = {
  contract_id: 'Contract ID',
  limit: 'How many',
  order: 'Order',
} as const;

const inputsSchema = z.object({
  contract_id: stepText,
  limit: stepInteger,
  order: stepText,
});

/** A workflow posts the text in a message: it is kept well inside a message's 40,000 characters. */
const MAX_TEXT_CHARS = 8_000;

/** "List NFT templates" in Workflow Builder: one page, as text a workflow can post or pass on. */
export function listTemplatesStep(deps: Pick<CapabilityDeps, 'mintAccounts' | 'store' | 'logger'>) {
  return (run: StepRun): Promise<StepResult> => listTemplates(deps, run);
}

async function listTemplates(deps: Pick<CapabilityDeps, 'mintAccounts'>, run: StepRun): Promise<StepResult> {
  // Without the workspace's Mint account nothing can be listed: the step says how to connect one.
  const account = await mintClientForStep(deps.mintAccounts, run.teamId);
  if ('failed' in account) return account.failed;
  const read = readStepInputs(inputsSchema, run.inputs, LIST_TEMPLATES_STEP_INPUTS);
  if (!read.ok) return { error: read.error, outcome: 'invalid_input' };
  const request = {
    contractId: read.value.contract_id?.trim() ?? '',
    offset: 0,
    limit: read.value.limit ?? DEFAULT_LIMIT,
    orderBy: read.value.order?.trim().toLowerCase() ?? DEFAULT_ORDER,
  };
  const checked = listTemplatesRequestSchema.safeParse(request);
  if (!checked.success)
    return {
      error: requestProblemsText(
        checked.error,
        { contractId: 'contract_id', limit: 'limit', orderBy: 'order' },
        LIST_TEMPLATES_STEP_INPUTS,
      ),
      outcome: 'invalid_input',
    };
  try {
    const page = await account.client.listTemplates(checked.data);
    return {
      outputs: {
        templates: pageText(page.items, request.contractId),
        count: page.items.length,
        ...(page.total !== undefined ? { total: page.total } : {}),
      },
    };
  } catch (error) {
    if (!(error instanceof MintApiError)) throw error;
    if (error.kind === 'not_found')
      return {
        error: `The Mint service does not know contract ${request.contractId} (HTTP 404). Check the step's “Contract ID” input.`,
        outcome: 'invalid_input',
      };
    return { error: mintFailureText(error, 'the templates'), outcome: 'upstream_error' };
  }
}

/** One line per template: its name and ID (or a few of its fields when it has neither). */
function pageText(items: readonly unknown[], contractId: string): string {
  if (items.length === 0) return `Contract ${contractId} has no templates.`;
  const lines: string[] = [];
  let length = 0;
  for (const [index, item] of items.entries()) {
    const fields = templateFields(item);
    const name = fields.title ?? fields.other.map(([key, value]) => `${key}: ${value}`).join(', ');
    const line = `${index + 1}. ${name || '(no name)'}${fields.id ? ` (ID ${fields.id})` : ''}`;
    if (length + line.length + 1 > MAX_TEXT_CHARS) {
      lines.push(`… and ${items.length - index} more`);
      break;
    }
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join('\n');
}
