import type { Config } from './config.js';
import { loadConfig, loadDotEnv } from './load-config.js';

/**
 * An operator's command (`npm run -s settings -- show`, `npm run -s secrets -- reseal`): one verb, run where
 * the app runs, with the same environment (or .env). Wrong arguments print the usage (exit 2, or 0 for
 * --help); a configuration the app would refuse is refused the same way (exit 1); else `run` decides.
 */
export async function operatorCommand(
  args: readonly string[],
  command: { verb: string; usage: string; run: (config: Config) => Promise<number> },
): Promise<number> {
  if (args[0] !== command.verb || args.length > 1) {
    process.stderr.write(`${command.usage}\n`);
    return args[0] === '-h' || args[0] === '--help' ? 0 : 2;
  }
  loadDotEnv();
  const loaded = loadConfig(process.env);
  if (!loaded.ok) {
    process.stderr.write(`${loaded.message}\n`);
    return 1;
  }
  return command.run(loaded.config);
}
