import type { Config } from '../platform/ops/config/config.js';
import { loadConfig, loadDotEnv } from '../platform/ops/config/load-config.js';

/**
 * An operator's command (`npm run -s settings -- show`, `npm run -s secrets -- reseal`): one verb, run where
 * the app runs, with the same environment (or .env). Wrong arguments print the usage (exit 2; --help prints it
 * on stdout, exit 0); a configuration the app would refuse is refused the same way, the message naming the
 * command (exit 1); else `run` decides.
 */
export async function operatorCommand(
  args: readonly string[],
  command: { name: string; verb: string; usage: string; run: (config: Config) => Promise<number> },
): Promise<number> {
  if (args[0] === '-h' || args[0] === '--help') {
    process.stdout.write(`${command.usage}\n`);
    return 0;
  }
  if (args[0] !== command.verb || args.length > 1) {
    process.stderr.write(`${command.usage}\n`);
    return 2;
  }
  loadDotEnv();
  const loaded = loadConfig(process.env, `Mintlink ${command.name} ${command.verb} cannot run`);
  if (!loaded.ok) {
    process.stderr.write(`${loaded.message}\n`);
    return 1;
  }
  return command.run(loaded.config);
}
