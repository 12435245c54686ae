import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testLogger } from '../../kit/test-logger.js';
import { NoInstallationError } from '../../../src/tenancy/installations/installation-store.js';
import { openStore, type Store } from '../../../src/platform/store/store.js';
import { sqliteDatabase } from '../../kit/store-engines.js';
import { WorkspaceGone, Workspaces } from '../../../src/tenancy/workspaces/workspaces.js';

/*
 * Review probe (issue 22): background work treats WorkspaceGone as "the workspace removed the app" (bulk
 * results say "the app is not installed in this workspace", workflow steps wait an hour, deletion work is
 * skipped). Only a missing installation may say so; a database that does not answer, or Slack failing a token
 * renewal, is a passing failure that the caller retries.
 */
describe('Workspaces.slack: gone only when there is no installation', () => {
  const logger = testLogger('error', (t) => t);
  let store: Store;
  beforeAll(async () => {
    store = openStore(sqliteDatabase().location);
    await store.migrate();
  });
  afterAll(() => store.close());
  /** Bolt's InstallProvider.authorize wraps whatever fetchInstallation throws in an AuthorizationError. */
  const wrapped = (original: Error) =>
    Object.assign(new Error(original.message), { code: 'slack_oauth_authorization_error', original });
  const workspaces = (failure: Error) =>
    new Workspaces(
      {
        kind: 'distributed',
        authorize: () => Promise.reject(wrapped(failure)),
        clientFor: (token) => new WebClient(token),
        installations: {
          deleteIfUnchanged: () => Promise.resolve(false),
          onStored: () => undefined,
        },
      },
      store,
      logger,
    );

  it('says gone for a workspace without an installation', async () => {
    await expect(workspaces(new NoInstallationError('no installation for TT1')).slack('T1')).rejects.toBeInstanceOf(
      WorkspaceGone,
    );
  });

  it('does not say gone when the database is away', async () => {
    const away = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    await expect(workspaces(away).slack('T1')).rejects.not.toBeInstanceOf(WorkspaceGone);
  });
});
