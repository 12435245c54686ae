import type { MintApiClient, MintServiceStatus } from '../mint-api/mint-api-client.js';

/**
 * Which Mint account serves each workspace. In single-workspace mode, the one account of MINT_API_KEY serves
 * every request.
 */
export class MintAccounts {
  constructor(private readonly single: MintApiClient) {}

  /** How the workspace's Mint account last answered (undefined: none connected). */
  statusFor(_teamId: string | null | undefined): Promise<MintServiceStatus | undefined> {
    return Promise.resolve(this.single.status);
  }

  /** The Mint client of a workspace's account. */
  forTeam(_teamId: string | null | undefined): Promise<MintApiClient> {
    return Promise.resolve(this.single);
  }
}
