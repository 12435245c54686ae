import { existsSync } from 'node:fs';
import type { Config } from '../platform/ops/config/config.js';
import { operatorCommand } from './operator-command.js';
import { describeDatabaseError } from '../platform/ops/lifecycle/database-error.js';
import { openStore, type Store } from '../platform/store/store.js';
import { showSettings } from './show-settings.js';

/*
 * `npm run -s settings -- show`: prints the settings in force and where each comes from. An operator's tool,
 * run where the app runs (the same environment or .env, the same database); it changes nothing, and creates
 * nothing: not the SQLite file, not a table.
 */
const USAGE = `Usage: npm run -s settings -- show

Prints the settings in force in each workspace (approvers, approval channel, quorum, expiry, reminders, audit
viewers, bulk concurrency, settings admins) and where each value comes from: the environment's default, or
a settings admin in Slack (who, when). Reads the same environment (or .env) and database as the app.`;

async function show(config: Config): Promise<number> {
  const { store: location } = config;
  if (location.engine === 'sqlite' && location.path !== ':memory:' && !existsSync(location.path)) {
    process.stdout.write(`${await showSettings(config, { used: false, where: `no file at ${location.path}` })}\n`);
    return 0;
  }
  let store: Store | undefined;
  try {
    store = openStore(location);
    const { applied } = await store.migrationState();
    const shown =
      applied.length === 0
        ? await showSettings(config, { used: false, where: 'none of its tables exist' })
        : await showSettings(config, { used: true, store });
    process.stdout.write(`${shown}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(
      `Could not read the settings: the database cannot be used (${describeDatabaseError(error, location)}).\n`,
    );
    return 1;
  } finally {
    await store?.close();
  }
}

/** `node dist/mintlink.mjs settings <args>`. */
export function runSettingsCommand(args: readonly string[]): Promise<number> {
  return operatorCommand(args, { name: 'settings', verb: 'show', usage: USAGE, run: show });
}
