import { type Actor, type AuditedOutcome, runAudited } from '../audit/run-audited.js';
import type { Logger } from '../logging/create-logger.js';
import type { MintApiClient } from '../mint-api/mint-api-client.js';
import type { MintRecord } from '../mint-api/responses.js';
import type { CreateLinkRequest } from '../mint-api/schemas.js';
import type { Store } from '../store/store.js';
import { linkUrls } from '../mint-api/link-urls.js';

/**
 * POST /v1/link under the audit log: the one way a link is created, from the form or from a workflow step
 * (`origin` says which workflow execution), with the Mint client of the workspace's account.
 */
export function createLinkAudited(
  deps: { mint: MintApiClient; store: Store; logger: Logger },
  actor: Actor,
  request: CreateLinkRequest,
  origin?: string,
): Promise<AuditedOutcome<MintRecord>> {
  return runAudited(
    deps,
    actor,
    {
      operation: 'link.create',
      origin,
      inputs: { ...request },
      thing: 'the mint link',
      done: 'created',
      detail: (link) => linkUrls(link)[0] ?? 'no URL in the answer',
    },
    () => deps.mint.createLink(request),
  );
}
