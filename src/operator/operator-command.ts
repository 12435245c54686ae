import type { Config } from '../platform/ops/config/config.js';
import { loadConfig, loadDotEnv } from '../platform/ops/config/load-config.js';

/** Exit code of a wrong invocation (as for shell built-ins and most command-line tools). */
export const USAGE_ERROR = 2;

/**
 * Every operator command (and `node dist/mintlink.mjs` itself, main.ts) answers a wrong invocation alike: one
 * line naming what was wrong, then its usage, on stderr, exit 2. The usage alone would leave the operator to
 * find which of their arguments it refuses.
 */
export function usageError(usage: string, problem: string): number {
  process.stderr.write(`${problem}\n\n${endingLine(usage)}`);
  return USAGE_ERROR;
}

/** `-h` / `--help`: the usage on stdout (it is what was asked for, so it can be piped), exit 0. */
export function printUsage(usage: string): number {
  process.stdout.write(endingLine(usage));
  return 0;
}

export function isHelp(arg: string): boolean {
  return arg === '-h' || arg === '--help';
}

/** An argument as the first line names it: quoted, and escaped so that a newline or escape in it stays on it. */
export function unknownArgument(arg: string): string {
  return `Unknown argument ${JSON.stringify(arg)}.`;
}

/**
 * The arguments of a command that takes exactly the words `expected` (its verb, or none), read in order as
 * manifest reads its own: `-h`/`--help` prints the usage, the first word that is not the expected one is
 * named, and so is a missing one. Returns the exit code once answered, or undefined when the command may run.
 */
export function refuseOtherArguments(
  args: readonly string[],
  expected: readonly string[],
  usage: string,
): number | undefined {
  for (const [i, arg] of args.entries()) {
    if (isHelp(arg)) return printUsage(usage);
    if (arg !== expected[i]) return usageError(usage, unknownArgument(arg));
  }
  const missing = expected[args.length];
  return missing === undefined ? undefined : usageError(usage, `Missing argument ${JSON.stringify(missing)}.`);
}

/**
 * An operator's command (`npm run -s settings -- show`, `npm run -s secrets -- reseal`): one verb, run where
 * the app runs, with the same environment (or .env). Wrong arguments are answered as usageError says (exit 2;
 * --help prints the usage on stdout, exit 0); a configuration the app would refuse is refused the same way,
 * the message naming the command (exit 1); else `run` decides.
 */
export async function operatorCommand(
  args: readonly string[],
  command: { name: string; verb: string; usage: string; run: (config: Config) => Promise<number> },
): Promise<number> {
  const refused = refuseOtherArguments(args, [command.verb], command.usage);
  if (refused !== undefined) return refused;
  loadDotEnv();
  const loaded = loadConfig(process.env, `Mintlink ${command.name} ${command.verb} cannot run`);
  if (!loaded.ok) {
    process.stderr.write(`${loaded.message}\n`);
    return 1;
  }
  return command.run(loaded.config);
}

const endingLine = (text: string) => (text.endsWith('\n') ? text : `${text}\n`);
