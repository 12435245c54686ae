import type { CapabilityStore } from '../../deps.js';
import { type Actor, type AuditedOutcome, runAudited } from '../../platform/mint/run-audited.js';
import type { Logger } from '../../platform/ops/telemetry/create-logger.js';
import type { MintApiClient, MintRecord } from '../../platform/mint/mint-api-client.js';
import type { CreateLinkRequest } from '../../platform/mint/schemas.js';
import { linkUrls } from '../../platform/mint/link-urls.js';

/**
 * POST /v1/link under the audit log: the one way a link is created, from the form or from a workflow step
 * (`origin` says which workflow execution), with the Mint client of the workspace's account.
 */
export function createLinkAudited(
  deps: { mint: MintApiClient; store: CapabilityStore; logger: Logger },
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
      history: { kind: 'link', how: origin ? 'workflow' : 'form', link: request },
      thing: 'the mint link',
      done: 'created',
      detail: (link) => linkUrls(link)[0] ?? 'no URL in the answer',
    },
    () => deps.mint.createLink(request),
  );
}
