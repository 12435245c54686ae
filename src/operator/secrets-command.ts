import { existsSync } from 'node:fs';
import type { Config } from '../platform/ops/config/config.js';
import { operatorCommand } from './operator-command.js';
import { SecretBox } from '../platform/secrets/secret-box.js';
import { describeDatabaseError, postgresTarget } from '../platform/ops/lifecycle/database-error.js';
import { openStore, type Store } from '../platform/store/store.js';
import { stepTokenSeal } from '../platform/slack/workflow-steps/sealed-token.js';
import { resealAll } from './reseal.js';

/*
 * `npm run secrets -- reseal`: seals every stored secret again with the newest key of SECRETS_KEYS. An
 * operator's tool, run where the app runs (the same environment or .env, the same database).
 */
const USAGE = `Usage: npm run -s secrets -- reseal

Seals every secret the app stores (installations' bot and refresh tokens, workspaces' Mint API keys, the
workflow execution tokens of steps waiting on a deletion request) again with the first key of SECRETS_KEYS. Rotate a key: put the new key first in SECRETS_KEYS and restart the app (it opens values sealed
with any listed key and seals new ones with the first), run this, then drop the old key from the list.
Safe to run while the app runs, and to run again. Prints counts and installation and workspace ids only,
never a secret.`;

async function reseal(config: Config): Promise<number> {
  if (config.secretKeys.length === 0) {
    process.stderr.write(
      'SECRETS_KEYS is not set: there is no key to reseal with. (Single-workspace mode then seals workflow step tokens with a key derived from SLACK_BOT_TOKEN; set SECRETS_KEYS, restart the app, then run this to seal them with your own key.)\n',
    );
    return 1;
  }
  const box = new SecretBox(config.secretKeys);
  const location = config.store;
  // Never creates or migrates a database: run in the wrong folder, that would report success on an empty
  // database and the operator would then drop the key the real one's secrets are sealed with.
  if (location.engine === 'sqlite' && location.path !== ':memory:' && !existsSync(location.path)) {
    process.stderr.write(
      `No database at ${location.path}: nothing resealed. Run this where the app runs, with its DATABASE_URL (or .env).\n`,
    );
    return 1;
  }
  let store: Store | undefined;
  try {
    store = openStore(location);
    const { applied, pending } = await store.migrationState();
    if (pending.length > 0) {
      const where = location.engine === 'sqlite' ? location.path : postgresPlace(location.url);
      process.stderr.write(
        applied.length === 0
          ? `The app has never run against ${where} (no tables): nothing resealed. Run this where the app runs, with its DATABASE_URL (or .env).\n`
          : `${where} is not migrated to this version (${pending.length} pending): nothing resealed. Start this version of the app once (it migrates at start), then run this again.\n`,
      );
      return 1;
    }
    const { installations, mintAccounts, stepTokens } = await resealAll(
      store,
      box,
      stepTokenSeal(config.secretKeys, config.slack.keySource),
    );
    process.stdout.write(
      `Resealed ${counted(installations.resealed, 'installation')} with key ${box.currentKeyId}; ${alreadyWere(installations.current)}.\n` +
        `Resealed ${counted(mintAccounts.resealed, 'Mint API key')} with key ${box.currentKeyId}; ${alreadyWere(mintAccounts.current)}.\n` +
        `Resealed ${counted(stepTokens.resealed, 'workflow step token')} with key ${box.currentKeyId}; ${alreadyWere(stepTokens.current)}.\n`,
    );
    if (installations.failed.length > 0)
      process.stderr.write(
        `Could not open the secrets of ${installations.failed.join(', ')} with any key of SECRETS_KEYS: keep every key they were sealed with listed, or have those workspaces reinstall the app.\n`,
      );
    if (mintAccounts.failed.length > 0)
      process.stderr.write(
        `Could not open the Mint API keys of ${mintAccounts.failed.length === 1 ? 'workspace' : 'workspaces'} ${mintAccounts.failed.join(', ')} with any key of SECRETS_KEYS: keep every key they were sealed with listed, or have an admin of each connect its Mint account again (App Home).\n`,
      );
    if (stepTokens.failed.length > 0)
      process.stderr.write(
        `Could not open the workflow step tokens of deletion ${stepTokens.failed.length === 1 ? 'request' : 'requests'} ${stepTokens.failed.join(', ')} with any key of SECRETS_KEYS, nor with the key derived from the bot token or signing secret: keep every key they were sealed with listed. Those steps are still completed when their request ends, with the bot token.\n`,
      );
    return installations.failed.length + mintAccounts.failed.length + stepTokens.failed.length === 0 ? 0 : 1;
  } catch (error) {
    process.stderr.write(
      `Resealing stopped: the database cannot be used (${describeDatabaseError(error, config.store)}). Run it again once the database answers: what was resealed stays resealed.\n`,
    );
    return 1;
  } finally {
    await store?.close();
  }
}

/** `node dist/mintlink.mjs secrets <args>`. */
export function runSecretsCommand(args: readonly string[]): Promise<number> {
  return operatorCommand(args, { name: 'secrets', verb: 'reseal', usage: USAGE, run: reseal });
}

function postgresPlace(url: string): string {
  const { database, host, port } = postgresTarget(url);
  return `PostgreSQL database ${database} on ${host}:${port}`;
}

const counted = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;
const alreadyWere = (n: number) => `${n} already ${n === 1 ? 'was' : 'were'}`;
