import type { Config } from '../config/config.js';
import { operatorCommand } from '../config/operator-command.js';
import { openStore } from '../store/store.js';
import { showSettings } from './show-settings.js';

/*
 * `npm run settings -- show`: prints the settings in force and where each comes from. An operator's tool,
 * run where the app runs (the same environment or .env, the same database); it changes nothing.
 */
const USAGE = `Usage: npm run -s settings -- show

Prints the settings in force in each workspace (approvers, approval channel, quorum, expiry, reminders, audit
viewers, bulk concurrency, settings admins) and where each value comes from: the environment's default, or
a settings admin in Slack (who, when). Reads the same environment (or .env) and database as the app.`;

async function show(config: Config): Promise<number> {
  const store = openStore(config.store);
  try {
    process.stdout.write(`${await showSettings(config, store)}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(
      `Could not read the settings from the database (${(error as Error).message}). Has the app run against it yet? It creates its tables at start.\n`,
    );
    return 1;
  } finally {
    await store.close();
  }
}

process.exitCode = await operatorCommand(process.argv.slice(2), { verb: 'show', usage: USAGE, run: show });
