import type { CapabilityStore } from '../../deps.js';
import { type Actor, type AuditedOutcome, runAudited } from '../../platform/mint/run-audited.js';
import type { Logger } from '../../platform/ops/telemetry/create-logger.js';
import type { MintApiClient, MintRecord } from '../../platform/mint/mint-api-client.js';
import type { CreateWalletRequest } from '../../platform/mint/schemas.js';

/**
 * POST /v1/wallet under the audit log: the one way a wallet is created, from the form or from a workflow step
 * (`origin` says which workflow execution), with the Mint client of the workspace's account.
 */
export function createWalletAudited(
  deps: { mint: MintApiClient; store: CapabilityStore; logger: Logger },
  actor: Actor,
  request: CreateWalletRequest,
  origin?: string,
): Promise<AuditedOutcome<MintRecord | undefined>> {
  return runAudited(
    deps,
    actor,
    {
      operation: 'wallet.create',
      origin,
      inputs: { ...request },
      history: { kind: 'wallet', how: origin ? 'workflow' : 'form', customerId: request.userId },
      thing: 'the wallet',
      done: 'created',
      detail: () => (request.userId ? `wallet for customer ${request.userId}` : 'wallet for a new user'),
    },
    () => deps.mint.createWallet(request),
  );
}
