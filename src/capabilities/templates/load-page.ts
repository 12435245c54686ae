import type { Logger } from '../../platform/ops/telemetry/create-logger.js';
import type { MintApiClient } from '../../platform/mint/mint-api-client.js';
import { MintApiError } from '../../platform/mint/mint-api-error.js';
import type { MessageContent } from '../../platform/blocks/blocks.js';
import { mintErrorText } from '../../platform/blocks/mint-error-text.js';
import { inlineCode } from '../../platform/blocks/mrkdwn.js';
import type { PageState } from './page-state.js';
import { templatePageMessage } from './template-page-message.js';

/** A failure's `outcome` is the Slack request's: an unknown contract is the asker's mistake, the rest the service's. */
export type LoadedPage =
  { ok: true; message: MessageContent } | { ok: false; reason: string; outcome: 'invalid_input' | 'upstream_error' };

/**
 * GET one page of templates with the Mint client of the workspace's account, and render it; failures and an
 * empty contract come back as a reason.
 */
export async function loadTemplatePage(
  deps: { mint: MintApiClient; logger: Logger },
  state: PageState,
): Promise<LoadedPage> {
  try {
    const page = await deps.mint.listTemplates({
      contractId: state.contractId,
      offset: state.offset,
      limit: state.limit,
      orderBy: state.order,
    });
    if (page.items.length === 0 && state.offset === 0) {
      return {
        ok: false,
        outcome: 'invalid_input',
        reason: `Contract ${inlineCode(state.contractId)} has no templates.`,
      };
    }
    return { ok: true, message: templatePageMessage(state, page) };
  } catch (error) {
    if (!(error instanceof MintApiError)) throw error;
    deps.logger.warn({ err: error, contractId: state.contractId }, 'could not list templates');
    if (error.kind === 'not_found') {
      return {
        ok: false,
        outcome: 'invalid_input',
        reason: `The Mint service does not know contract ${inlineCode(state.contractId)} (HTTP 404). Check the contract ID.`,
      };
    }
    return {
      ok: false,
      outcome: 'upstream_error',
      reason: `Could not list the templates of ${inlineCode(state.contractId)}. ${mintErrorText(error, 'the templates')}`,
    };
  }
}
