import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runDoctorCommand } from '../../src/operator/doctor-command.js';
import { configVariables } from '../../src/platform/ops/config/config-schema.js';
import { MintApiClient } from '../../src/platform/mint/mint-api-client.js';
import { MintCallRecorder, OPERATOR_ACCOUNT, mintKeyId } from '../../src/tenancy/mint-accounts/mint-call-recorder.js';
import { parseSecretKey, type SecretKey } from '../../src/platform/secrets/secret-box.js';
import { openStore, type Store } from '../../src/platform/store/store.js';
import { TEST_MINT_API_KEY } from '../kit/app-process.js';
import { useFakes } from '../kit/fakes.js';
import { freePort } from '../kit/free-port.js';
import { TEST_TEAM_ID } from '../kit/slack-ids.js';
import { runInProcess } from '../kit/command-in-process.js';
import { sqliteDatabase } from '../kit/store-engines.js';
import { testLogger } from '../kit/test-logger.js';
import { DISTRIBUTION_ENV, OTHER_TEAM_ID, installWorkspace } from '../kit/workspaces.js';

/*
 * `npm run -s doctor` as the operator runs it: the built artifact (`node dist/mintlink.mjs doctor`) in a
 * directory without a .env, against the fake Slack and the mock Mint service, each problem it names set up
 * in them or in the database. The process is started for each of its paths (nothing blocks, distribution mode;
 * with no configuration, `npm run -s doctor` runs in the production recipe, test/ops/); the problems it names
 * are found by the same command's function run in the test's process (test/kit/command-in-process.ts), a
 * fraction of a process's start each.
 */
const artifact = fileURLToPath(new URL('../../dist/mintlink.mjs', import.meta.url));
const fakes = useFakes();
const APPROVAL_CHANNEL = 'C0APPROVE1';
const stores: Store[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

/** The environment of a setup where nothing blocks: Socket Mode, two approvers for a quorum of 1. */
function goodEnv(databaseUrl: string): Record<string, string> {
  return {
    ...Object.fromEntries(configVariables.map((name) => [name, ''])), // nothing from a developer's shell
    PATH: process.env.PATH ?? '',
    SLACK_BOT_TOKEN: fakes.slack.botToken,
    SLACK_APP_TOKEN: fakes.slack.appToken,
    SLACK_API_URL: fakes.slack.apiUrl,
    MINT_API_BASE_URL: fakes.mint.url,
    MINT_API_KEY: TEST_MINT_API_KEY,
    DATABASE_URL: databaseUrl,
    APPROVAL_CHANNEL_ID: APPROVAL_CHANNEL,
    DELETION_APPROVERS: 'U0BOB0001,U0CAROL01',
  };
}

/** A database the app has migrated, and where the Mint service took (or refused) `apiKey` on a real call. */
async function preparedDatabase(
  apiKey = TEST_MINT_API_KEY,
  idKey: string = fakes.slack.appToken,
): Promise<{ url: string; store: Store }> {
  const db = sqliteDatabase();
  const store = openStore(db.location);
  stores.push(store);
  await store.migrate();
  const recorder = new MintCallRecorder(
    store.mintCallOutcomes,
    testLogger('warn', (text) => text),
    idKey, // what single-workspace mode names keys under (keyIdSecret): Socket Mode's app token by default
  );
  const client = new MintApiClient({
    baseUrl: fakes.mint.url,
    apiKey,
    timeoutMs: 2_000,
    scrub: (text) => text,
    maxRetries: 0,
    onCallEnded: recorder.forAccount(OPERATOR_ACCOUNT, apiKey),
  });
  await client.createWallet({}).catch(() => undefined); // refused when the key is not the service's
  await client.close();
  await recorder.flush();
  return { url: db.databaseUrl, store };
}

/** The doctor's command run in the test's process, with `env` as its environment. */
async function doctor(env: Record<string, string>): Promise<{ code: number; out: string }> {
  const { code, stdout, stderr } = await runInProcess(runDoctorCommand, [], env);
  return { code, out: stdout + stderr };
}

/** `node dist/mintlink.mjs doctor` in a directory of its own, with `env` as its environment. */
async function doctorProcess(env: Record<string, string>): Promise<{ code: number; out: string }> {
  const cwd = mkdtempSync(join(tmpdir(), 'mintlink-doctor-'));
  return new Promise((resolve) => {
    execFile(process.execPath, [artifact, 'doctor'], { cwd, env, timeout: 30_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, out: stdout + stderr });
    });
  });
}

/** The lines of the report that do not pass, and the line after each (what to do). */
function problems(out: string): string[] {
  return out.split('\n').filter((line) => /^(✗|!|\s+->)/.test(line));
}

describe('npm run doctor', () => {
  it('exits 0 when nothing blocks, each item checked with what Slack and the database say', async () => {
    const { url } = await preparedDatabase();
    const { code, out } = await doctorProcess(goodEnv(url));
    expect(out).toContain('Mintlink setup doctor: single-workspace mode, Socket Mode');
    expect(out).toMatch(/✓ Database \(SQLite .*\): reachable, and every migration is applied/);
    expect(out).toContain('✓ Socket Mode: the app-level token opens a connection');
    expect(out).toContain(
      `✓ Slack bot token: works in workspace Test (${TEST_TEAM_ID}), with every scope the manifest asks for`,
    );
    expect(out).toContain(`✓ Approval channel ${APPROVAL_CHANNEL}: exists, and the app is a member`);
    expect(out).toContain('✓ Deletion approvers: U0BOB0001 and U0CAROL01 (2 people)');
    expect(out).toContain('✓ Quorum: each request needs 1 approval from the 2 approvers, never the requester’s own');
    expect(out).toContain('✓ Audit viewers: the deletion approvers, since no one else is named');
    expect(out).toContain(`Workspace Test (${TEST_TEAM_ID})`);
    expect(out).toContain('✓ Settings admins: the workspace’s admins and owners');
    expect(out).toMatch(/✓ Mint service: answered \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    expect(problems(out)).toEqual([]);
    expect(out).toContain('Nothing blocks the setup.');
    expect(code).toBe(0);
    // It asked Slack, with the tokens of the configuration.
    expect(fakes.slack.callsTo('auth.test').at(-1)?.token).toBe(fakes.slack.botToken);
    expect(fakes.slack.callsTo('apps.connections.open').at(-1)?.token).toBe(fakes.slack.appToken);
    for (const secret of [fakes.slack.botToken, fakes.slack.appToken, TEST_MINT_API_KEY])
      expect(out).not.toContain(secret);
  });

  it('names a revoked or wrong bot token, and what to do', async () => {
    const { url } = await preparedDatabase();
    fakes.slack.revokedTokens.add(fakes.slack.botToken);
    const revoked = await doctor(goodEnv(url));
    expect(revoked.code).toBe(1);
    expect(problems(revoked.out)).toEqual([
      '✗ Slack bot token: Slack refuses it (token_revoked)',
      expect.stringMatching(/^ {4}-> The token no longer works: reinstall the app to the workspace .*SLACK_BOT_TOKEN/),
    ]);
    expect(revoked.out).toContain('1 problem blocks the setup');

    fakes.slack.revokedTokens.clear();
    const wrong = await doctor({ ...goodEnv(url), SLACK_BOT_TOKEN: 'xoxb-1111-2222-notTheAppsToken' });
    expect(wrong.code).toBe(1);
    expect(wrong.out).toContain('✗ Slack bot token: Slack refuses it (invalid_auth)');
    expect(wrong.out).toContain('-> Copy the Bot User OAuth Token (xoxb-...)');
    expect(wrong.out).not.toContain('xoxb-1111-2222-notTheAppsToken');
  });

  it('with Slack unreachable names one cause and counts one problem, in a workspace it cannot name', async () => {
    const { url } = await preparedDatabase();
    const apiUrl = `http://ops:hunter2@127.0.0.1:${await freePort()}/api/`; // nothing listens there
    const { code, out } = await doctor({ ...goodEnv(url), SLACK_API_URL: apiUrl });
    expect(code).toBe(1);
    expect(problems(out)).toEqual([
      expect.stringMatching(/^✗ Socket Mode: could not reach Slack at http:\/\/127\.0\.0\.1:\d+\/api\/ \(/),
      '    -> Check the network and SLACK_API_URL, then run this again.',
      '! Slack bot token: not checked, since Slack could not be reached (above)',
      '    -> Run this again once Slack answers.',
    ]);
    expect(out).toContain('The workspace (SLACK_BOT_TOKEN)');
    expect(out).toContain('1 problem blocks the setup');
    expect(out).not.toContain('hunter2');
  });

  it('names a scope the manifest asks for that the token lacks', async () => {
    const { url } = await preparedDatabase();
    fakes.slack.grantedScopes.delete('usergroups:read');
    const { code, out } = await doctor(goodEnv(url));
    expect(code).toBe(1);
    expect(problems(out)).toEqual([
      `✗ Slack bot token: works in workspace Test (${TEST_TEAM_ID}), but lacks the scope usergroups:read`,
      expect.stringMatching(/^ {4}-> Add usergroups:read to the Bot Token Scopes .*then reinstall the app/),
    ]);
  });

  it('says when the app is not in the approval channel, or the channel is not there', async () => {
    const { url } = await preparedDatabase();
    fakes.slack.channelsWithoutBot.add(APPROVAL_CHANNEL);
    try {
      const { code, out } = await doctor(goodEnv(url));
      expect(code).toBe(1);
      expect(problems(out)).toEqual([
        `✗ Approval channel ${APPROVAL_CHANNEL}: the app is not a member, so requests cannot be posted there`,
        '    -> Type /invite @Mintlink in that channel.',
      ]);
    } finally {
      fakes.slack.channelsWithoutBot.delete(APPROVAL_CHANNEL);
    }
    const gone = await doctor({ ...goodEnv(url), APPROVAL_CHANNEL_ID: '' });
    expect(gone.code).toBe(1);
    expect(gone.out).toContain('✗ Approval channel: none is set, so nobody can request a customer deletion');
  });

  it('names the approvers who do not resolve to people, and a quorum they cannot reach', async () => {
    const { url } = await preparedDatabase();
    fakes.slack.unknownUsers.add('U0GONE001');
    fakes.slack.deactivatedUsers.add('U0LEFT001');
    const unresolved = await doctor({
      ...goodEnv(url),
      DELETION_APPROVERS: 'U0BOB0001,U0CAROL01,U0GONE001,U0LEFT001,S0NOPE001',
    });
    expect(unresolved.code).toBe(1);
    expect(problems(unresolved.out)).toEqual([
      '✗ Deletion approvers: U0GONE001 is not found (user_not_found), U0LEFT001 is deactivated and S0NOPE001 (user group) cannot be read (no_such_subteam)',
      '    -> Replace or remove them in Settings on App Home (or DELETION_APPROVERS).',
    ]);

    // As many approvers as the quorum: others' requests can be approved, the approvers' own never; not blocking.
    const asMany = await doctor({ ...goodEnv(url), DELETION_QUORUM: '2' });
    expect(problems(asMany.out)).toEqual([
      '! Quorum: each request needs 2 approvals from the 2 approvers, never the requester’s own: a request by one of the approvers can never be approved',
      '    -> Add an approver in Settings on App Home (or DELETION_APPROVERS), or lower the quorum, if approvers request deletions too.',
    ]);
    expect(asMany.out).toContain('Nothing blocks the setup.');
    expect(asMany.code).toBe(0);

    // A user group counts its members: three people for a quorum of 2.
    fakes.slack.userGroups.set('S0OPS0001', ['U0BOB0001', 'U0CAROL01', 'U0DAVE001']);
    try {
      const group = await doctor({ ...goodEnv(url), DELETION_APPROVERS: 'S0OPS0001', DELETION_QUORUM: '2' });
      expect(group.out).toContain(
        '✓ Quorum: each request needs 2 approvals from the 3 approvers, never the requester’s own',
      );
      expect(group.code).toBe(0);

      // Fewer approvers than the quorum (the configuration cannot count a group's members): it blocks.
      const tooFew = await doctor({ ...goodEnv(url), DELETION_APPROVERS: 'S0OPS0001', DELETION_QUORUM: '4' });
      expect(tooFew.code).toBe(1);
      expect(problems(tooFew.out)).toEqual([
        '✗ Quorum: each request needs 4 approvals, but there are 3 approvers: no request can ever be approved',
        '    -> Add approvers in Settings on App Home (or DELETION_APPROVERS), or lower the quorum.',
      ]);
    } finally {
      fakes.slack.userGroups.delete('S0OPS0001');
    }
  });

  it('checks the settings in force in the workspace: what an admin chose in Slack over the environment', async () => {
    const { url, store } = await preparedDatabase();
    const at = new Date().toISOString();
    fakes.slack.unknownUsers.add('U0GONE001');
    await store.workspaceSettingsRows.save(
      TEST_TEAM_ID,
      0,
      {
        auditViewers: { value: { users: ['U0GONE001'], userGroups: [] }, by: 'U0ADMIN01', at },
        settingsAdmins: { value: { users: ['U0ADMIN01'], userGroups: [] }, by: 'U0ADMIN01', at },
      },
      'U0ADMIN01',
    );
    const { code, out } = await doctor(goodEnv(url));
    expect(code).toBe(1);
    expect(problems(out)).toEqual([
      '✗ Audit viewers: U0GONE001 is not found (user_not_found)',
      '    -> Replace or remove it in Settings on App Home (or AUDIT_VIEWERS).',
    ]);
    expect(out).toContain('✓ Settings admins: U0ADMIN01 (1 person)');
  });

  it('says the database is missing, or that the app never migrated it, and creates nothing', async () => {
    const missing = join(mkdtempSync(join(tmpdir(), 'mintlink-doctor-db-')), 'data', 'mintlink.sqlite');
    const absent = await doctor(goodEnv(`file:${missing}`));
    expect(absent.code).toBe(1);
    expect(absent.out).toContain(`✗ Database: ${missing} does not exist`);
    expect(absent.out).toContain('-> Start the app once (npm start) against this database');
    expect(existsSync(missing)).toBe(false);

    const empty = sqliteDatabase();
    const store = openStore(empty.location); // the file exists: nothing in it
    stores.push(store);
    const unmigrated = await doctor(goodEnv(empty.databaseUrl));
    expect(unmigrated.code).toBe(1);
    expect(unmigrated.out).toMatch(
      /✗ Database \(SQLite .*\): reachable, but the app has never run against it \(no tables\)/,
    );
    expect((await store.migrationState()).applied).toEqual([]); // the doctor migrated nothing
  });

  it('says when the Mint service refused the key on its last real call, and when it was never called', async () => {
    const refusedKey = 'not-the-services-key-12345';
    const refused = await preparedDatabase(refusedKey);
    const { code, out } = await doctor({ ...goodEnv(refused.url), MINT_API_KEY: refusedKey });
    expect(code).toBe(1);
    expect(problems(out)).toEqual([
      expect.stringMatching(
        /^✗ Mint service: refused the key \(401\) on the last call, \d{4}-\d\d-\d\d \d\d:\d\d UTC$/,
      ),
      '    -> Put the API key the Mint service issued to you in MINT_API_KEY and restart the app.',
    ]);

    expect(out).not.toContain(refusedKey);

    // The call was made with another key than MINT_API_KEY's: it says nothing of this key (not blocking).
    const other = await doctor(goodEnv(refused.url));
    expect(problems(other.out)).toEqual([
      '! Mint service: not called with this key yet',
      '    -> Create a mint link or a wallet, or browse templates, to try the key.',
    ]);
    expect(other.code).toBe(0);
  });

  it('in HTTP mode without PUBLIC_URL says what it could not check, without blocking', async () => {
    const { url } = await preparedDatabase(TEST_MINT_API_KEY, 'a-signing-secret-for-http-mode');
    const { code, out } = await doctor({
      ...goodEnv(url),
      SLACK_APP_TOKEN: '',
      SLACK_SIGNING_SECRET: 'a-signing-secret-for-http-mode',
    });
    expect(out).toContain('Mintlink setup doctor: single-workspace mode, HTTP mode');
    expect(problems(out)).toEqual([
      '! HTTP mode: PUBLIC_URL is not set, so whether Slack reaches the app is not checked',
      '    -> Set PUBLIC_URL to the https address Slack sends requests to (the URL given to npm run manifest -- --http).',
    ]);
    expect(code).toBe(0);
  });

  // Started, with `npm run -s doctor` on the production install: test/ops/production-recipe.e2e.test.ts.
  it('with no configuration lists what is missing, as the app does', async () => {
    const { code, out } = await doctor({ PATH: process.env.PATH ?? '' });
    expect(code).toBe(1);
    expect(out).toContain('✗ Configuration: the app would not start: 4 configuration problems.');
    for (const variable of ['SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET', 'MINT_API_BASE_URL', 'MINT_API_KEY'])
      expect(out).toContain(`- ${variable} is not set`);
    expect(out).not.toMatch(/\n\s+at /); // no stack trace
  });
});

describe('npm run doctor in distribution mode', () => {
  it('checks the operator’s part, then each installed workspace in a few lines; a workspace’s problems do not block', async () => {
    const db = sqliteDatabase();
    const app = await fakes.startApp('http', {
      env: {
        ...DISTRIBUTION_ENV,
        DATABASE_URL: db.databaseUrl,
        APPROVAL_CHANNEL_ID: APPROVAL_CHANNEL,
        DELETION_APPROVERS: 'U0BOB0001,U0CAROL01',
      },
    });
    try {
      await installWorkspace(app, fakes.slack, { teamId: TEST_TEAM_ID });
      const other = await installWorkspace(app, fakes.slack, { teamId: OTHER_TEAM_ID }, null);
      fakes.slack.revokedTokens.add(other);
      const env = {
        ...Object.fromEntries(configVariables.map((name) => [name, ''])),
        ...Object.fromEntries(Object.entries(app.env).filter(([name]) => name !== 'PORT')),
      };
      const { code, out } = await doctorProcess(env);
      expect(out).toContain('Mintlink setup doctor: distribution mode, HTTP mode');
      expect(out).toMatch(/✓ Database \(SQLite .*\): reachable, and every migration is applied/);
      expect(out).toContain('Installed workspaces: 2; installers add the app at /slack/install of PUBLIC_URL');
      expect(out).toContain(`! Workspace Workspace ${TEST_TEAM_ID} (${TEST_TEAM_ID}): nothing fails`);
      expect(out).toContain('    ! Mint service: not called with this key yet');
      expect(out).toContain(`✗ Workspace Workspace ${OTHER_TEAM_ID} (${OTHER_TEAM_ID}): 1 of 1 checks fail`);
      expect(out).toContain('    ✗ Slack bot token: Slack refuses it (token_revoked)');
      expect(out).toContain(
        '        -> The token no longer works: install the app to this workspace again (Add to Slack, at /slack/install).',
      );
      expect(out).toContain("The workspaces' 1 problem does not block the deployment");
      expect(out).not.toContain(other);
      expect(code).toBe(0);

      // A call made with another key (the one replaced), recorded after the connection: not this key's. The
      // app is stopped first: the command run in this process then has the database file to itself.
      await app.stop();
      const store = app.openStore();
      try {
        const call = { account: TEST_TEAM_ID, outcome: 'accepted' as const, status: 200 };
        const later = new Date(Date.now() + 60_000);
        const idKey = (parseSecretKey(app.env.SECRETS_KEYS?.split(',')[0] ?? '') as SecretKey).bytes;
        await store.mintCallOutcomes.save({ ...call, keyId: mintKeyId('the-replaced-key', idKey), at: later });
        expect((await doctor(env)).out).toContain('    ! Mint service: not called with this key yet');
        await store.mintCallOutcomes.save({ ...call, keyId: mintKeyId(TEST_MINT_API_KEY, idKey), at: later });
        expect((await doctor(env)).out).not.toContain('Mint service: not called with this key yet');
      } finally {
        await store.close();
      }
    } finally {
      await app.stop();
    }
  });
});
