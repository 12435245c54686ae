import type { SecretBox } from '../secrets/secret-box.js';
import type { StoredInstallation } from '../store/installations.js';
import type { Store } from '../store/store.js';
import { sealContext } from './installation-store.js';

export interface ResealReport {
  /** Installations whose secrets were sealed again with the newest key. */
  resealed: number;
  /** Installations already sealed with it. */
  current: number;
  /** Installations that could not be opened with any listed key (named by id; nothing else is said). */
  failed: string[];
}

const FIELDS = ['botToken', 'botRefreshToken', 'userToken', 'userRefreshToken'] as const;

/**
 * Seals every stored secret again with the newest key of SECRETS_KEYS (the first), so the older keys can be
 * dropped from the list afterwards. Safe to run while the app runs, and again: a value already sealed with
 * the newest key is left as it is.
 */
export async function resealAll(store: Store, box: SecretBox): Promise<ResealReport> {
  const report: ResealReport = { resealed: 0, current: 0, failed: [] };
  for (const installation of await store.installations.all()) {
    const stale = FIELDS.filter((field) => {
      const sealed = installation.sealed[field];
      return sealed !== undefined && box.isStale(sealed);
    });
    if (stale.length === 0) {
      report.current += 1;
      continue;
    }
    try {
      const sealed: StoredInstallation['sealed'] = { ...installation.sealed };
      for (const field of stale) {
        const context = sealContext(installation.id, field);
        sealed[field] = box.seal(box.open(installation.sealed[field] ?? '', context), context);
      }
      if (await store.installations.replaceSealed(installation.id, installation.sealed, sealed)) report.resealed += 1;
    } catch {
      report.failed.push(installation.id);
    }
  }
  return report;
}
