import { LRUCache } from 'lru-cache';
import type { Config } from '../../platform/ops/config/config.js';
import type { Logger } from '../../platform/ops/telemetry/create-logger.js';
import type { Scrubber } from '../../platform/ops/telemetry/secret-scrubber.js';
import type { Metrics } from '../../platform/ops/telemetry/metrics.js';
import {
  MintApiClient,
  type MintApiClientOptions,
  type MintServiceStatus,
} from '../../platform/mint/mint-api-client.js';
import { SecretBox } from '../../platform/secrets/secret-box.js';
import type { StoredMintAccount } from '../../platform/store/mint-account-rows.js';
import type { Store } from '../../platform/store/store.js';
import { KeptRows } from '../../platform/changes/kept-rows.js';
import { lastFour } from './mint-key.js';
import { keyIdSecret, type MintCallRecorder, mintKeyId } from './mint-call-recorder.js';
import { NoMintAccount, UnreadableMintAccount } from './not-connected.js';
import { SharedPools, type PoolKind } from './shared-pools.js';
import {
  NonPublicAddressError,
  publicAddressOf,
  systemResolver,
  type AddressPolicy,
  type HostResolver,
} from '../../platform/mint/public-address.js';
import { isOperatorsOrigin, PUBLIC_ONLY, type Checked } from './mint-key.js';

export interface MintAccountsDeps {
  config: Pick<Config, 'distribution' | 'secretKeys' | 'mint' | 'mintBaseUrlPerWorkspace'>;
  store: Pick<Store, 'mintAccountRows' | 'mintCallOutcomes' | 'transaction' | 'changes'>;
  /** The operator's account (MINT_API_KEY): every workspace's in single-workspace mode (where config requires it). */
  mintApi: MintApiClient | undefined;
  scrub: Scrubber;
  metrics?: Metrics;
  logger: Logger;
  /** Keeps each account's last real call in the database (for the setup doctor). */
  mintCalls?: MintCallRecorder | undefined;
}

export interface MintAccountsOptions {
  /** Given to every account's client (tests: a small breaker, a clock of their own). */
  client?: Partial<
    Pick<MintApiClientOptions, 'breaker' | 'defaultPauseMs' | 'now' | 'maxRetries' | 'retryBaseDelayMs'>
  >;
  /** Accounts whose clients are kept at once (the least used is dropped first, and made again when needed). */
  maxClients?: number;
  /**
   * What a workspace's own base URL may reach: public addresses only (the app never sets it). A test of a
   * workspace's own service on this host (there is no public address on a test machine) takes loopback too.
   */
  addressPolicy?: AddressPolicy;
  /** Resolves the host names of workspaces' own base URLs (the system's resolver in the app; tests: their own). */
  resolveHost?: HostResolver;
}

/** A workspace's account as the app shows it: never the key, only its last four characters. */
export type MintAccount = Omit<StoredMintAccount, 'sealedKey'>;

export interface MintAccountEvent {
  teamId: string;
  change: 'connected' | 'replaced' | 'removed' | 'refused' | 'accepted';
}

/** Who changes an account, and from where when not from a person in Slack (`app uninstalled`). */
export interface AccountChanger {
  by: string;
  origin?: string;
}

const MAX_CLIENTS = 1_000;

/** What a sealed key is bound to: a key copied into another workspace's row does not open there. */
export function mintKeySealContext(teamId: string): string {
  return `mint_account ${teamId} api_key`;
}

/** Told with a refused key (401/403) in distribution mode, where the operator's MINT_API_KEY is not the one. */
export const REFUSED_KEY_ADVICE =
  'An admin of this workspace can replace the Mint API key in Mintlink’s App Home (Replace key).';

/** Told when a workspace's own base URL leads to an address that is not public. */
export const REFUSED_ADDRESS_ADVICE =
  'An admin of this workspace can correct the Mint service base URL in Mintlink’s App Home (Replace key).';

/** How long the connect form waits for the lookup of a base URL's host: Slack waits 3 s for the answer. */
const FORM_LOOKUP_TIMEOUT_MS = 1_500;

/** One account's client, and what it was made from (a replaced key, or a key resealed, makes another). */
interface AccountClient {
  sealedKey: string;
  baseUrl: string;
  origin: string;
  /** Its connections: the operator's URL as configured, or a workspace's own, to public addresses only. */
  poolKind: PoolKind;
  client: MintApiClient;
  /** The refusal as this replica knows it: the database is written only when it changes. */
  refusedStatus: number | undefined;
}

/**
 * Which Mint account serves each workspace. In single-workspace mode, the one account of MINT_API_KEY serves
 * every request. In distribution mode each workspace connects its own (App Home): its key is sealed in the
 * database, bound to the workspace, and each account gets a client of its own, made when first needed, so the
 * circuit breaker and the service's requests to wait (429, Retry-After) hold back that account only: one
 * customer's outage or rate limit never slows another. The clients share their connections (one pool per
 * origin). A key the service refuses (401/403) is recorded on the account for its admins to see, and cleared
 * by the next success.
 */
export class MintAccounts {
  private readonly box: SecretBox | undefined;
  /**
   * What this replica read of each workspace's account (none too): a key connected, replaced, removed or refused
   * on any replica is forgotten here when the change feed tells it.
   */
  private readonly rows: KeptRows<StoredMintAccount>;
  private readonly clients: LRUCache<string, AccountClient>;
  private readonly pools: SharedPools;
  /** What a workspace's own base URL may reach (its operator's origin aside): public addresses only. */
  private readonly addressPolicy: AddressPolicy;
  private readonly resolveHost: HostResolver;
  private readonly listeners: Array<(event: MintAccountEvent) => void> = [];
  /** Writes of a refusal under way (awaited on close). */
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly deps: MintAccountsDeps,
    private readonly options: MintAccountsOptions = {},
  ) {
    this.box = deps.config.distribution ? new SecretBox(deps.config.secretKeys) : undefined;
    // Never this host: a workspace's URL on it is taken only as the operator's own origin (isOperatorsOrigin).
    this.addressPolicy = options.addressPolicy ?? { allowLoopback: false };
    this.resolveHost = options.resolveHost ?? systemResolver;
    this.pools = new SharedPools({ ...this.addressPolicy, resolve: this.resolveHost });
    this.rows = new KeptRows(
      {
        read: (teamId) => this.deps.store.mintAccountRows.getVersioned(teamId),
        versions: (teamIds) => this.deps.store.mintAccountRows.versions(teamIds),
      },
      { keepMissing: true }, // a workspace without an account is told how to connect, from memory
    ).follow(deps.store.changes, 'mint-account');
    this.clients = new LRUCache({
      max: options.maxClients ?? MAX_CLIENTS,
      dispose: (dropped) =>
        this.track(dropped.client.close().then(() => this.pools.release(dropped.origin, dropped.poolKind))),
    });
  }

  /** True when each workspace connects its own account (distribution mode). */
  get distributed(): boolean {
    return this.box !== undefined;
  }

  /**
   * The Mint client of a workspace's account. Throws NoMintAccount (a refusal telling how to connect) when the
   * workspace has none, UnreadableMintAccount when its key cannot be opened any more.
   */
  async forTeam(teamId: string | null | undefined): Promise<MintApiClient> {
    const { box } = this;
    if (!box) {
      if (!this.deps.mintApi)
        throw new Error('single-workspace mode without MINT_API_KEY (the configuration requires it)');
      return this.deps.mintApi;
    }
    const account = teamId ? await this.stored(teamId) : undefined;
    if (!account) throw new NoMintAccount();
    return this.clientOf(account, box);
  }

  /** How the workspace's Mint account last answered (undefined: none connected). */
  async statusFor(teamId: string | null | undefined): Promise<MintServiceStatus | undefined> {
    if (!this.box) return this.deps.mintApi?.status;
    const account = teamId ? await this.stored(teamId) : undefined;
    if (!account) return undefined;
    const known = this.clients.get(account.teamId);
    if (known?.sealedKey === account.sealedKey) return known.client.status;
    // Not called on this replica yet: only a refusal recorded by any replica is known.
    return {
      lastAnsweredAt: undefined,
      lastFailure: account.refused ? { at: account.refused.at, kind: 'unauthorized' } : undefined,
      circuit: 'closed',
      pausedUntil: undefined,
    };
  }

  /** A workspace's connected account, as shown (undefined: none, or single-workspace mode). */
  async account(teamId: string | undefined): Promise<MintAccount | undefined> {
    if (!this.box || !teamId) return undefined;
    const stored = await this.stored(teamId);
    return stored && withoutKey(stored);
  }

  /**
   * The id (mintKeyId) of the key the workspace's account holds now, what its recorded calls are matched
   * against; undefined when none is connected or its key cannot be opened.
   */
  async keyId(teamId: string | undefined): Promise<string | undefined> {
    if (!this.box || !teamId) return undefined;
    const stored = await this.stored(teamId);
    if (!stored) return undefined;
    try {
      return mintKeyId(this.box.open(stored.sealedKey, mintKeySealContext(teamId)), keyIdSecret(this.deps.config));
    } catch {
      return undefined;
    }
  }

  /**
   * Whether a workspace's own base URL (checked as written by checkMintBaseUrl) leads to a public address now,
   * looked up as a call would: the connect form's inline error when it does not. Every call checks again when
   * it connects, since a name may resolve elsewhere later.
   */
  async checkBaseUrlAddress(baseUrl: string): Promise<Checked<string>> {
    if (isOperatorsOrigin(baseUrl, this.deps.config.mint.baseUrl)) return { ok: true, value: baseUrl };
    const { hostname } = new URL(baseUrl);
    try {
      await publicAddressOf(hostname, this.addressPolicy, this.resolveHost, FORM_LOOKUP_TIMEOUT_MS);
      return { ok: true, value: baseUrl };
    } catch (error) {
      if (error instanceof NonPublicAddressError)
        return {
          ok: false,
          problem: `${error.message}: ${PUBLIC_ONLY}`,
        };
      const code = error instanceof Error && 'code' in error ? error.code : undefined;
      if (code === 'ENOTFOUND' || code === 'ENODATA')
        return { ok: false, problem: `${hostname} has no address on the internet: check how it is spelled.` };
      this.deps.logger.warn({ err: error }, 'could not look up the host of a Mint base URL typed in the connect form');
      return { ok: false, problem: `${hostname} could not be looked up just now: try again in a moment.` };
    }
  }

  /**
   * Connects a workspace's account, or replaces its key: sealed, stored and audited together (the audit entry
   * names the last four characters, never the key). The base URL is kept only when the operator allows one per
   * workspace. Calls from now on use the new key.
   */
  async connect(
    teamId: string,
    input: { apiKey: string; baseUrl?: string | undefined },
    changer: AccountChanger,
  ): Promise<{ account: MintAccount; previous: MintAccount | undefined }> {
    const box = this.requireBox();
    const keyLast4 = lastFour(input.apiKey);
    const baseUrl = this.deps.config.mintBaseUrlPerWorkspace ? input.baseUrl : undefined;
    const sealedKey = box.seal(input.apiKey, mintKeySealContext(teamId));
    const previous = await this.deps.store.transaction(async (tx) => {
      const replaced = await tx.mintAccountRows.save({ teamId, sealedKey, keyLast4, baseUrl, connectedBy: changer.by });
      await tx.audit.record({
        actorId: changer.by,
        teamId,
        operation: replaced ? 'mint_account.replace' : 'mint_account.connect',
        origin: changer.origin,
        inputs: {
          keyLast4,
          ...(baseUrl ? { baseUrl } : {}),
          ...(replaced ? { previousKeyLast4: replaced.keyLast4 } : {}),
        },
        outcome: 'succeeded',
        detail: replaced
          ? `key ending ${keyLast4} replaces the key ending ${replaced.keyLast4}`
          : `key ending ${keyLast4}`,
      });
      return replaced;
    });
    this.forget(teamId);
    this.emit({ teamId, change: previous ? 'replaced' : 'connected' });
    const account = await this.account(teamId);
    if (!account) throw new Error('the Mint account just connected cannot be read back');
    return { account, previous: previous && withoutKey(previous) };
  }

  /** Removes a workspace's account (audited); returns what it was, undefined when there was none. */
  async remove(teamId: string, changer: AccountChanger): Promise<MintAccount | undefined> {
    if (!this.box) return undefined;
    const removed = await this.deps.store.transaction(async (tx) => {
      const gone = await tx.mintAccountRows.delete(teamId);
      if (gone)
        await tx.audit.record({
          actorId: changer.by,
          teamId,
          operation: 'mint_account.remove',
          origin: changer.origin,
          inputs: { keyLast4: gone.keyLast4 },
          outcome: 'succeeded',
          detail: `key ending ${gone.keyLast4} removed`,
        });
      return gone;
    });
    // How the removed key's last call ended says nothing once the key is gone, and names it (its digest).
    await this.deps.store.mintCallOutcomes.delete(teamId);
    this.forget(teamId);
    if (removed) this.emit({ teamId, change: 'removed' });
    return removed && withoutKey(removed);
  }

  /** Called after each change of an account (connected, replaced, removed, refused by the service, accepted again). */
  onChange(listener: (event: MintAccountEvent) => void): void {
    this.listeners.push(listener);
  }

  /** Closes every account's connections (the operator's client is its owner's to close). */
  async close(): Promise<void> {
    this.clients.clear();
    while (this.pending.size > 0) await Promise.all([...this.pending]);
    await this.pools.closeAll();
  }

  /** Connection pools open now, one per origin (for tests). */
  get openPools(): number {
    return this.pools.size;
  }

  private stored(teamId: string): Promise<StoredMintAccount | undefined> {
    return this.rows.get(teamId);
  }

  private clientOf(account: StoredMintAccount, box: SecretBox): MintApiClient {
    const { teamId } = account;
    const own = this.deps.config.mintBaseUrlPerWorkspace && account.baseUrl ? account.baseUrl : undefined;
    const baseUrl = own ?? this.deps.config.mint.baseUrl;
    // A URL a workspace's admin typed is reached at public addresses only; the operator's own origin is trusted
    // as set, whoever names it.
    const poolKind: PoolKind =
      own && !isOperatorsOrigin(own, this.deps.config.mint.baseUrl) ? 'public-only' : 'operator';
    const known = this.clients.get(teamId);
    if (known && known.sealedKey === account.sealedKey && known.baseUrl === baseUrl) return known.client;
    let apiKey: string;
    try {
      apiKey = box.open(account.sealedKey, mintKeySealContext(teamId));
    } catch (error) {
      this.deps.logger.error({ err: error, team: teamId }, 'cannot open the Mint API key of a workspace');
      throw new UnreadableMintAccount();
    }
    const origin = new URL(baseUrl).origin;
    const made: AccountClient = {
      sealedKey: account.sealedKey,
      baseUrl,
      origin,
      poolKind,
      refusedStatus: account.refused?.status,
      client: new MintApiClient({
        ...this.options.client,
        baseUrl,
        apiKey,
        timeoutMs: this.deps.config.mint.timeoutMs,
        scrub: this.deps.scrub,
        ...(this.deps.metrics ? { metrics: this.deps.metrics } : {}),
        logger: this.deps.logger.child({ component: 'mint-api', team: teamId }),
        connections: this.pools.acquire(origin, poolKind),
        onServiceAnswer: (status) => this.noteAnswer(teamId, made, status),
        ...(this.deps.mintCalls ? { onCallEnded: this.deps.mintCalls.forAccount(teamId, apiKey) } : {}),
        refusedKeyAdvice: REFUSED_KEY_ADVICE,
        refusedAddressAdvice: REFUSED_ADDRESS_ADVICE,
      }),
    };
    this.clients.set(teamId, made); // a client made from an older key is dropped (and closed)
    return made.client;
  }

  /** The service took or refused this account's key: the account records it when that changes. */
  private noteAnswer(teamId: string, made: AccountClient, status: number): void {
    const refused = status === 401 || status === 403 ? status : undefined;
    // Other answers (404, 429, 5xx) say nothing of the key.
    if (refused === undefined && (status < 200 || status >= 300)) return;
    if (refused === made.refusedStatus) return;
    const before = made.refusedStatus;
    made.refusedStatus = refused;
    this.track(
      this.deps.store.mintAccountRows.noteRefusal(teamId, made.sealedKey, refused).then(
        (changed) => {
          if (!changed) return;
          this.rows.forget(teamId);
          if (refused)
            this.deps.logger.warn(
              { team: teamId, status: refused },
              'the Mint service refused the API key of a workspace; its admins see it in App Home',
            );
          else this.deps.logger.info({ team: teamId }, 'the Mint service takes the API key of a workspace again');
          this.emit({ teamId, change: refused ? 'refused' : 'accepted' });
        },
        (error: unknown) => {
          if (made.refusedStatus === refused) made.refusedStatus = before; // the next answer tries again
          this.deps.logger.warn({ err: error, team: teamId }, 'could not record how the Mint service took an API key');
        },
      ),
    );
  }

  private forget(teamId: string): void {
    this.rows.forget(teamId);
    this.clients.delete(teamId);
  }

  private emit(event: MintAccountEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.deps.logger.warn({ err: error, team: event.teamId }, 'a listener of Mint account changes failed');
      }
    }
  }

  private track(work: Promise<void>): void {
    const settled = work.catch((error: unknown) =>
      this.deps.logger.warn({ err: error }, 'could not close the connections of a Mint account'),
    );
    this.pending.add(settled);
    void settled.finally(() => this.pending.delete(settled));
  }

  private requireBox(): SecretBox {
    if (!this.box) throw new Error('Mint accounts are connected in distribution mode only');
    return this.box;
  }
}

function withoutKey(stored: StoredMintAccount): MintAccount {
  const { sealedKey: _sealed, ...shown } = stored;
  return shown;
}
