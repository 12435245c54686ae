import { randomBytes } from 'node:crypto';
import type { Installation } from '@slack/bolt';
import { expect, it } from 'vitest';
import { pino } from 'pino';
import {
  NoInstallationError,
  SqlInstallationStore,
  sealContext,
} from '../../../src/tenancy/installations/installation-store.js';
import { resealAll } from '../../../src/operator/reseal.js';
import { stepTokenSeal } from '../../../src/platform/slack/workflow-steps/sealed-token.js';
import { sealedInFirstFormat } from '../../kit/sealed-step-token.js';
import { mintKeySealContext } from '../../../src/tenancy/mint-accounts/mint-accounts.js';
import { parseSecretKey, SecretBox, type SecretKey } from '../../../src/platform/secrets/secret-box.js';
import { openStore } from '../../../src/platform/store/store.js';
import { describeEachEngine } from '../../kit/store-engines.js';

const key = (): SecretKey => parseSecretKey(randomBytes(32).toString('base64')) as SecretKey;
const quiet = pino({ level: 'silent' });
const SIGNING_SECRET = 'signing-secret-0123456789abcdef';
/** For stores whose tests renew no token. */
const noRenewal = () => Promise.reject(new Error('no token is renewed in this test'));

function workspaceInstall(teamId: string, token: string, refreshToken?: string): Installation {
  return {
    team: { id: teamId, name: 'Acme' },
    enterprise: undefined,
    user: { id: 'U0INSTALL1', token: undefined, scopes: undefined },
    bot: {
      id: 'B0BOT00001',
      userId: 'U0BOT00001',
      token,
      scopes: ['commands', 'chat:write'],
      ...(refreshToken ? { refreshToken, expiresAt: 1_900_000_000 } : {}),
    },
    appId: 'A0APP00001',
    tokenType: 'bot',
    isEnterpriseInstall: false,
    authVersion: 'v2',
  };
}

describeEachEngine('installation store', (_engine, create) => {
  it('stores sealed tokens, fetches them per workspace or org, and deletes; reseals with a new key', async () => {
    const db = await create();
    const store = openStore(db.location);
    await store.migrate();
    const oldKey = key();
    const installations = new SqlInstallationStore(store, new SecretBox([oldKey]), quiet, noRenewal);
    const refreshTokenStored = async (box: SecretBox, id: string) => {
      const sealed = (await store.installationRows.get(id))?.sealed.botRefreshToken ?? '';
      return box.open(sealed, sealContext(id, 'botRefreshToken'));
    };

    await installations.storeInstallation(workspaceInstall('T0AAAAAAA1', 'xoxe.xoxb-a-secret', 'xoxe-1-refresh-a'));
    await installations.storeInstallation({
      ...workspaceInstall('T0IGNORED1', 'xoxb-org-secret'),
      team: undefined,
      enterprise: { id: 'E0ORG00001', name: 'Globex' },
      isEnterpriseInstall: true,
    });

    const rows = await store.installationRows.all();
    expect(rows.map((r) => r.id).sort()).toEqual(['EE0ORG00001', 'TT0AAAAAAA1']);
    expect(JSON.stringify(rows)).not.toMatch(/secret|refresh-a/);

    const a = await installations.fetchInstallation({
      teamId: 'T0AAAAAAA1',
      enterpriseId: undefined,
      isEnterpriseInstall: false,
    });
    expect(a.bot?.token).toBe('xoxe.xoxb-a-secret');
    // Bolt gets neither the refresh token nor the expiry: the store renews tokens, once for every replica.
    expect(a.bot?.refreshToken).toBeUndefined();
    expect(a.bot?.expiresAt).toBeUndefined();
    expect(await refreshTokenStored(new SecretBox([oldKey]), 'TT0AAAAAAA1')).toBe('xoxe-1-refresh-a');
    expect(a.team?.name).toBe('Acme');
    const org = await installations.fetchInstallation({
      teamId: 'T0ANYWS001',
      enterpriseId: 'E0ORG00001',
      isEnterpriseInstall: true,
    });
    expect(org.bot?.token).toBe('xoxb-org-secret');
    await expect(
      installations.fetchInstallation({ teamId: 'T0BBBBBBB1', enterpriseId: undefined, isEnterpriseInstall: false }),
    ).rejects.toBeInstanceOf(NoInstallationError);

    // A sealed token copied into another workspace's row does not open there.
    const b = workspaceInstall('T0BBBBBBB1', 'xoxb-b-secret');
    await installations.storeInstallation(b);
    const stolen = (await store.installationRows.get('TT0AAAAAAA1'))?.sealed ?? {};
    const bRow = await store.installationRows.get('TT0BBBBBBB1');
    await store.installationRows.replaceSealed('TT0BBBBBBB1', bRow?.sealed ?? {}, { botToken: stolen.botToken });
    const fresh = new SqlInstallationStore(store, new SecretBox([oldKey]), quiet, noRenewal);
    await expect(
      fresh.fetchInstallation({ teamId: 'T0BBBBBBB1', enterpriseId: undefined, isEnterpriseInstall: false }),
    ).rejects.toThrow(/moved from another row/);
    await store.installationRows.delete('TT0BBBBBBB1');

    // Two workspaces' Mint API keys: one sealed with the old key, one with a key no longer listed.
    const sealMintKey = (box: SecretBox, teamId: string, apiKey: string) =>
      store.mintAccountRows.save({
        teamId,
        sealedKey: box.seal(apiKey, mintKeySealContext(teamId)),
        keyLast4: apiKey.slice(-4),
        baseUrl: undefined,
        connectedBy: 'U0ADMIN01',
      });
    await sealMintKey(new SecretBox([oldKey]), 'T0AAAAAAA1', 'mint-key-of-a-1234');
    await sealMintKey(new SecretBox([key()]), 'T0LOSTKEY1', 'mint-key-lost-5678');

    // Rotation: a new key first, the old one still listed, then everything resealed.
    const newKey = key();
    const rotated = new SecretBox([newKey, oldKey]);
    const steps = stepTokenSeal([newKey, oldKey], SIGNING_SECRET);
    expect(await resealAll(store, rotated, steps)).toEqual({
      installations: { resealed: 2, current: 0, failed: [] },
      mintAccounts: { resealed: 1, current: 0, failed: ['T0LOSTKEY1'] },
      stepTokens: { resealed: 0, current: 0, failed: [] },
    });
    expect(await resealAll(store, rotated, steps)).toEqual({
      installations: { resealed: 0, current: 2, failed: [] },
      mintAccounts: { resealed: 0, current: 1, failed: ['T0LOSTKEY1'] },
      stepTokens: { resealed: 0, current: 0, failed: [] },
    });
    const resealedKey = (await store.mintAccountRows.get('T0AAAAAAA1'))?.sealedKey ?? '';
    expect(new SecretBox([newKey]).open(resealedKey, mintKeySealContext('T0AAAAAAA1'))).toBe('mint-key-of-a-1234');
    const onlyNew = new SqlInstallationStore(store, new SecretBox([newKey]), quiet, noRenewal);
    const again = await onlyNew.fetchInstallation({
      teamId: 'T0AAAAAAA1',
      enterpriseId: undefined,
      isEnterpriseInstall: false,
    });
    expect(again.bot?.token).toBe('xoxe.xoxb-a-secret');
    expect(await refreshTokenStored(new SecretBox([newKey]), 'TT0AAAAAAA1')).toBe('xoxe-1-refresh-a');

    await onlyNew.deleteInstallation({ teamId: 'T0AAAAAAA1', enterpriseId: undefined, isEnterpriseInstall: false });
    await expect(
      onlyNew.fetchInstallation({ teamId: 'T0AAAAAAA1', enterpriseId: undefined, isEnterpriseInstall: false }),
    ).rejects.toBeInstanceOf(NoInstallationError);
    await store.close();
    await db.drop();
  });

  it('reseals the workflow tokens of waiting steps after a key rotation, those sealed before the upgrade too', async () => {
    const db = await create();
    const store = openStore(db.location);
    await store.migrate();
    const [oldKey, newKey, lostKey] = [key(), key(), key()];
    const waitingStep = async (sealed: (requestId: string) => string) => {
      const request = await store.deletionRequests.create({
        teamId: 'T1',
        requesterId: 'U1',
        customerIds: ['c1'],
        duplicatesRemoved: 0,
        reason: 'r',
        ttlMs: 3_600_000,
        approvalsNeeded: 1,
        approvers: { users: [], userGroups: [] },
      });
      await store.stepCompletions.add('T1', {
        requestId: request.id,
        functionExecutionId: `Fx${request.id}`,
        sealedToken: sealed(request.id),
      });
      return request.id;
    };
    const firstFormat = await waitingStep(() => sealedInFirstFormat(SIGNING_SECRET, 'xwfp-first-format'));
    const oldKeys = await waitingStep((id) => stepTokenSeal([oldKey], SIGNING_SECRET).seal('xwfp-old-key', id));
    const lost = await waitingStep((id) => stepTokenSeal([lostKey], SIGNING_SECRET).seal('xwfp-lost', id));
    const completed = await waitingStep((id) => stepTokenSeal([oldKey], SIGNING_SECRET).seal('xwfp-done', id));
    expect(await store.stepCompletions.claim('T1', completed, 60_000)).toBeDefined();
    await store.stepCompletions.finish('T1', completed, 'completed');

    const rotated = stepTokenSeal([newKey, oldKey], SIGNING_SECRET);
    const box = new SecretBox([newKey, oldKey]);
    expect((await resealAll(store, box, rotated)).stepTokens).toEqual({ resealed: 2, current: 0, failed: [lost] });
    expect((await resealAll(store, box, rotated)).stepTokens).toEqual({ resealed: 0, current: 2, failed: [lost] });
    // Both open with the new key alone now, bound to their request as before.
    const onlyNew = stepTokenSeal([newKey], 'another signing secret');
    const opened = async (id: string) => onlyNew.open((await store.stepCompletions.sealedTokenOf('T1', id)) ?? '', id);
    expect(await opened(firstFormat)).toBe('xwfp-first-format');
    expect(await opened(oldKeys)).toBe('xwfp-old-key');
    expect(await store.stepCompletions.sealedTokenOf('T1', completed)).toBe('');
    await store.close();
    await db.drop();
  });
});

describeEachEngine('an installation deleted only as it was read', (_engine, create) => {
  it('deletes the version read, never one written since; org-wide rows and their workspaces', async () => {
    const db = await create();
    const store = openStore(db.location);
    await store.migrate();
    try {
      const installations = new SqlInstallationStore(store, new SecretBox([key()]), quiet, noRenewal);
      const query = { teamId: 'T0AAAAAAA1', enterpriseId: undefined, isEnterpriseInstall: false };
      await installations.storeInstallation(workspaceInstall('T0AAAAAAA1', 'xoxb-first'));
      const read = await store.installationRows.get('TT0AAAAAAA1');
      if (!read) throw new Error('not stored');
      // Installed again after the read, a few milliseconds on (the version is the database clock, to the millisecond).
      await new Promise((resolve) => setTimeout(resolve, 5));
      await installations.storeInstallation(workspaceInstall('T0AAAAAAA1', 'xoxb-second'));
      expect(await installations.deleteIfUnchanged(query, read.updatedAt)).toBe(false);
      expect((await installations.fetchInstallation(query)).bot?.token).toBe('xoxb-second');

      const current = await store.installationRows.get('TT0AAAAAAA1');
      if (!current) throw new Error('gone');
      expect(await installations.deleteIfUnchanged(query, current.updatedAt)).toBe(true);
      await expect(installations.fetchInstallation(query)).rejects.toBeInstanceOf(NoInstallationError);

      await installations.storeInstallation({
        ...workspaceInstall('T0IGNORED1', 'xoxb-org'),
        team: undefined,
        enterprise: { id: 'E0ORG00001', name: 'Globex' },
        isEnterpriseInstall: true,
      });
      expect(await store.installationRows.orgWide()).toEqual([
        { id: 'EE0ORG00001', enterpriseId: 'E0ORG00001', version: expect.any(String) },
      ]);
      expect(await store.installationRows.recordTeam('T0GRIDWS01', 'EE0ORG00001')).toBe(true);
      expect(await store.installationRows.recordTeam('T0GRIDWS02', 'EE0ORG00001')).toBe(true);
      // A workspace recorded as one installation's is never taken by another's (Slack Connect, issue 29 review).
      expect(await store.installationRows.recordTeam('T0GRIDWS02', 'EEOTHERORG')).toBe(false);
      expect(await store.installationRows.installationOfTeam('T0GRIDWS02')).toBe('EE0ORG00001');
      const now = new Date(Date.now() + 5_000);
      expect(await store.installationRows.forgetTeam('T0GRIDWS01', 'EOTHERORG', now)).toBe(false);
      // A leave that happened before the workspace joined is about an earlier membership: the record stays.
      expect(await store.installationRows.forgetTeam('T0GRIDWS01', 'EE0ORG00001', new Date(Date.now() - 240_000))).toBe(
        false,
      );
      expect(await store.installationRows.forgetTeam('T0GRIDWS01', 'EE0ORG00001', now)).toBe(true);
      expect((await store.installationRows.departedAt('T0GRIDWS01', 'EE0ORG00001'))?.getTime()).toBe(now.getTime());
      expect(await store.installationRows.teamsOf('EE0ORG00001')).toEqual(['T0GRIDWS02']);
      const org = await store.installationRows.get('EE0ORG00001');
      if (!org) throw new Error('no org');
      expect(await store.installationRows.deleteIfUnchanged('EE0ORG00001', org.updatedAt)).toBe(true);
      expect(await store.installationRows.teamsOf('EE0ORG00001')).toEqual([]);
      expect(await store.installationRows.departedAt('T0GRIDWS01', 'EE0ORG00001')).toBeUndefined();
    } finally {
      await store.close();
      await db.drop();
    }
  });
});
