// manifest.yml, built into the artifact as text (esbuild's text loader; src/operator/manifest-file.d.ts):
// production ships dist/, not the repository's files.
import manifestYaml from '../../manifest.yml';
import { distributedManifest, httpManifest, slackEventsUrl } from './http-manifest.js';
import { isHelp, printUsage, unknownArgument, usageError } from './operator-command.js';

/*
 * `npm run -s manifest [-- --http https://YOUR-HOST [--distributed]]`: prints the Slack app manifest. An
 * operator's tool, run from the built artifact like the app (production dependencies only); the running app
 * never loads it.
 */
const USAGE = `Usage: npm run -s manifest [-- --http <public https URL> [--distributed]]

Prints the Slack app manifest (YAML) to paste at https://api.slack.com/apps -> Create New App -> From a manifest.

  (no option)         manifest.yml as it is: Socket Mode, no public URL needed.
  --http <URL>        HTTP mode: Socket Mode off, and the /mintlink command's url, settings.interactivity.request_url
                      and settings.event_subscriptions.request_url all set to <URL>/slack/events, where the app
                      takes Slack's requests (<URL>: https://host, or https://host/prefix behind a proxy).
  --distributed       with --http: distribution mode ("Add to Slack" in many workspaces): adds
                      oauth_config.redirect_urls (<URL>/slack/oauth_redirect) and turns token rotation on.
  -h, --help          this text.

Example: npm run -s manifest -- --http https://mintlink.example.com > manifest.http.yml
(-s keeps npm's own "> mintlink-slack manifest" lines out of the output.)
`;

/** `node dist/mintlink.mjs manifest <args>`. */
export async function runManifestCommand(args: readonly string[]): Promise<number> {
  let http: string | undefined;
  let distributed = false;
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] ?? '';
    if (isHelp(arg)) return printUsage(USAGE);
    if (arg === '--http' || arg.startsWith('--http=')) {
      if (http !== undefined) return usageError(USAGE, '--http is given twice.');
      const value = arg === '--http' ? args[(i += 1)] : arg.slice('--http='.length);
      if (!value || value.startsWith('-')) return usageError(USAGE, '--http needs the public https URL of the app.');
      http = value;
      continue;
    }
    if (arg === '--distributed') {
      distributed = true;
      continue;
    }
    return usageError(USAGE, unknownArgument(arg));
  }

  if (http === undefined) {
    if (distributed) return usageError(USAGE, '--distributed needs --http: installs need a public https URL.');
    process.stdout.write(manifestYaml);
    return 0;
  }
  const eventsUrl = slackEventsUrl(http);
  if (!eventsUrl.ok) return usageError(USAGE, eventsUrl.message);
  const forHttp = await httpManifest(manifestYaml, eventsUrl.url);
  process.stdout.write(distributed ? await distributedManifest(forHttp, eventsUrl.url) : forHttp);
  return 0;
}
