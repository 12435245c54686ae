import { loadConfig, loadDotEnv } from '../config/load-config.js';
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

async function main(args: string[]): Promise<number> {
  if (args[0] !== 'show' || args.length > 1) {
    process.stderr.write(`${USAGE}\n`);
    return args[0] === '-h' || args[0] === '--help' ? 0 : 2;
  }
  loadDotEnv();
  const loaded = loadConfig(process.env);
  if (!loaded.ok) {
    process.stderr.write(`${loaded.message}\n`);
    return 1;
  }
  const store = openStore(loaded.config.store);
  try {
    process.stdout.write(`${await showSettings(loaded.config, store)}\n`);
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

process.exitCode = await main(process.argv.slice(2));
