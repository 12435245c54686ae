import { mintKeySealContext } from '../tenancy/mint-accounts/mint-accounts.js';
import type { SecretBox } from '../platform/secrets/secret-box.js';
import type { StoredInstallation } from '../platform/store/installation-rows.js';
import type { Store } from '../platform/store/store.js';
import type { StepTokenSeal } from '../platform/slack/workflow-steps/sealed-token.js';
import { sealContext } from '../tenancy/installations/installation-store.js';

/** What resealing did to one kind of stored secret. */
export interface ResealCounts {
  /** Rows whose secrets were sealed again with the newest key. */
  resealed: number;
  /** Rows already sealed with it. */
  current: number;
  /** Rows that could not be opened with any listed key (named by id; nothing else is said). */
  failed: string[];
}

export interface ResealReport {
  /** Installations' bot and refresh tokens, by installation id. */
  installations: ResealCounts;
  /** Workspaces' Mint API keys, by workspace id. */
  mintAccounts: ResealCounts;
  /** Workflow execution tokens kept while their deletion request waits, by request id. */
  stepTokens: ResealCounts;
}

const FIELDS = ['botToken', 'botRefreshToken', 'userToken', 'userRefreshToken'] as const;

/**
 * Seals every stored secret again with the newest key of SECRETS_KEYS (the first), so the older keys can be
 * dropped from the list afterwards: installations' tokens, workspaces' Mint API keys and the workflow execution
 * tokens of steps waiting on a deletion request (also those sealed with the key derived from the bot token or
 * signing secret, or in their first format). Safe to run while the app runs, and again: a value already sealed
 * with the newest key is left as it is, and one changed meanwhile (a token rotated, a key replaced, a step
 * completed) is left to its newer value.
 */
export async function resealAll(store: Store, box: SecretBox, stepTokens: StepTokenSeal): Promise<ResealReport> {
  return {
    installations: await resealInstallations(store, box),
    mintAccounts: await resealMintKeys(store, box),
    stepTokens: await resealStepTokens(store, stepTokens),
  };
}

async function resealInstallations(store: Store, box: SecretBox): Promise<ResealCounts> {
  const counts: ResealCounts = { resealed: 0, current: 0, failed: [] };
  for (const installation of await store.installationRows.all()) {
    const stale = FIELDS.filter((field) => {
      const sealed = installation.sealed[field];
      return sealed !== undefined && box.isStale(sealed);
    });
    if (stale.length === 0) {
      counts.current += 1;
      continue;
    }
    try {
      const sealed: StoredInstallation['sealed'] = { ...installation.sealed };
      for (const field of stale) {
        const context = sealContext(installation.id, field);
        sealed[field] = box.seal(box.open(installation.sealed[field] ?? '', context), context);
      }
      if (await store.installationRows.replaceSealed(installation.id, installation.sealed, sealed))
        counts.resealed += 1;
    } catch {
      counts.failed.push(installation.id);
    }
  }
  return counts;
}

async function resealMintKeys(store: Store, box: SecretBox): Promise<ResealCounts> {
  const counts: ResealCounts = { resealed: 0, current: 0, failed: [] };
  for (const account of await store.mintAccountRows.all()) {
    if (!box.isStale(account.sealedKey)) {
      counts.current += 1;
      continue;
    }
    try {
      const context = mintKeySealContext(account.teamId);
      const sealed = box.seal(box.open(account.sealedKey, context), context);
      if (await store.mintAccountRows.replaceSealed(account.teamId, account.sealedKey, sealed)) counts.resealed += 1;
    } catch {
      counts.failed.push(account.teamId);
    }
  }
  return counts;
}

async function resealStepTokens(store: Store, seal: StepTokenSeal): Promise<ResealCounts> {
  const counts: ResealCounts = { resealed: 0, current: 0, failed: [] };
  for (const { requestId, sealedToken } of await store.stepCompletions.keptTokens()) {
    if (!seal.isStale(sealedToken)) {
      counts.current += 1;
      continue;
    }
    const token = seal.open(sealedToken, requestId);
    if (token === undefined) {
      counts.failed.push(requestId);
      continue;
    }
    if (await store.stepCompletions.replaceSealedToken(requestId, sealedToken, seal.seal(token, requestId)))
      counts.resealed += 1;
  }
  return counts;
}
