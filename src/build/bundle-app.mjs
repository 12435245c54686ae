// `npm run build:app`'s second step: src/main.ts and its dependencies bundled into the one file
// that `npm start` runs, dist/mintlink.mjs.
import { readFile } from 'node:fs/promises';
import { build } from 'esbuild';

const OUTFILE = 'dist/mintlink.mjs';

/**
 * The Slack Web API client formats three debug lines on every call whatever its logger's level: a copy of
 * the call's arguments, of its headers and of Slack's answer, each walked key by key (its `redact`) and
 * serialized, then dropped by a logger at info. For a modal that is two copies of the whole view per call,
 * 2% of the app's CPU over `npm run bench`. In the bundle each of those lines is formatted only when the
 * logger is at debug (or does not say its level): what is logged, at any level, is unchanged. The build fails
 * when the client's code no longer has the three lines (a new version of the SDK): look at it again then.
 */
const webClientDebugCopies = {
  name: 'web-client-debug-copies',
  setup(bundler) {
    bundler.onLoad({ filter: /[\\/]@slack[\\/]web-api[\\/]dist[\\/]WebClient\.js$/ }, async ({ path }) => {
      const source = await readFile(path, 'utf8');
      const line = /this\.logger\.debug\(`[^`]*\$\{JSON\.stringify\(redact\(\w+\)\)\}`\);/g;
      const found = source.match(line)?.length ?? 0;
      if (found !== 3) throw new Error(`${path}: expected 3 debug lines with a redacted copy, found ${found}`);
      const guarded = source.replace(line, (call) => `if ((this.logger.getLevel?.() ?? 'debug') === 'debug') ${call}`);
      return { contents: guarded, loader: 'js' };
    });
  },
};

await build({
  entryPoints: ['src/main.ts'],
  outfile: OUTFILE,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  loader: { '.yml': 'text' },
  external: [
    'better-sqlite3',
    'pg-native',
    '@opentelemetry/sdk-trace-node',
    '@opentelemetry/exporter-trace-otlp-http',
    '@opentelemetry/resources',
    'yaml',
  ],
  banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
  // V8 keeps the bundle's whole source in the heap for as long as the process runs, at two bytes a character
  // if one character of it is past Latin-1 (the dependencies' comments have a few: dashes, quotes). Without
  // comments and indentation it is 4 MB at one byte a character instead of 12 MB; names are kept, so stack
  // traces still name each function. The licences' comments go to dist/mintlink.mjs.LEGAL.txt.
  minifyWhitespace: true,
  legalComments: 'linked',
  plugins: [webClientDebugCopies],
  logLevel: 'warning',
});

const beyondLatin1 = /[\u0100-\uffff]/.exec(await readFile(OUTFILE, 'utf8'));
if (beyondLatin1)
  throw new Error(`${OUTFILE} has "${beyondLatin1[0]}": V8 would keep its source at two bytes a character`);
