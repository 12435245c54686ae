import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { InstallURLOptions, StateStore } from '@slack/bolt';
import type { OnceKeys } from '../../platform/store/once-keys.js';

/** How long an install link works once the install page made it (Bolt's state cookie lives as long). */
export const STATE_TTL_SECONDS = 600;

/** Why a state was refused: shown to the installer as a page, so each says what to do. */
export class OAuthStateError extends Error {
  readonly code = 'slack_oauth_invalid_state';
  constructor(readonly reason: 'forged' | 'expired' | 'reused') {
    super(`OAuth state ${reason}`);
  }
}

/**
 * Bolt's StateStore for the OAuth flow: the state is the install options, when it was made and a nonce,
 * signed with SLACK_STATE_SECRET (HMAC-SHA256). It is accepted once, on any replica (the nonce is claimed in
 * the database), and for STATE_TTL_SECONDS. Bolt also checks that it is the one its cookie gave this browser.
 */
export class OnceOnlyStateStore implements StateStore {
  constructor(
    private readonly secret: string,
    private readonly onceKeys: OnceKeys,
  ) {}

  generateStateParam(installOptions: InstallURLOptions, now: Date): Promise<string> {
    const body = Buffer.from(
      JSON.stringify({ o: installOptions, t: now.getTime(), n: randomBytes(16).toString('base64url') }),
    ).toString('base64url');
    return Promise.resolve(`${body}.${this.sign(body)}`);
  }

  async verifyStateParam(now: Date, state: string): Promise<InstallURLOptions> {
    const decoded = this.open(state, now);
    if (!(await this.onceKeys.claim(`oauth-state:${decoded.n}`))) throw new OAuthStateError('reused');
    return decoded.o;
  }

  /**
   * What is wrong with a state, without using it up: 'forged', 'expired', or undefined for one the app made
   * within STATE_TTL_SECONDS (used or not). Bolt refuses a state whose cookie this browser no longer has
   * before asking this store (a link replayed after its install, or older than the cookie), and the installer
   * is still told which it was.
   */
  flaw(state: string, now = new Date()): 'forged' | 'expired' | undefined {
    try {
      this.open(state, now);
      return undefined;
    } catch (error) {
      if (error instanceof OAuthStateError && error.reason !== 'reused') return error.reason;
      throw error;
    }
  }

  /** The state's content once its signature and age are checked. */
  private open(state: string, now: Date): { o: InstallURLOptions; t: number; n: string } {
    const [body = '', signature = ''] = state.split('.');
    const expected = Buffer.from(this.sign(body));
    const given = Buffer.from(signature);
    if (!body || given.length !== expected.length || !timingSafeEqual(given, expected))
      throw new OAuthStateError('forged');
    // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- the state's body is read only after its HMAC was verified: the app wrote it
    const decoded = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as {
      o: InstallURLOptions;
      t: number;
      n: string;
    };
    if (now.getTime() - decoded.t > STATE_TTL_SECONDS * 1000 || decoded.t > now.getTime() + 60_000)
      throw new OAuthStateError('expired');
    return decoded;
  }

  private sign(body: string): string {
    return createHmac('sha256', this.secret).update(`mintlink oauth state ${body}`).digest('base64url');
  }
}
