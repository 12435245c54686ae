import { readFileSync } from 'node:fs';
import { distributedManifest, httpManifest, slackEventsUrl } from './http-manifest.js';

/*
 * `npm run manifest [-- --http https://YOUR-HOST]`: prints the Slack app manifest. An operator's tool, run from a
 * checkout of the repository (it needs the dev dependencies: tsx and yaml); the running app never loads it.
 */
const USAGE = `Usage: npm run -s manifest [-- --http <public https URL>]

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

/** Exit code of a wrong invocation (as for shell built-ins and most command-line tools). */
const USAGE_ERROR = 2;

function usageError(message: string): never {
  process.stderr.write(`${message}\n\n${USAGE}`);
  process.exit(USAGE_ERROR);
}

function main(args: string[]): void {
  let http: string | undefined;
  let distributed = false;
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] ?? '';
    if (arg === '-h' || arg === '--help') {
      process.stdout.write(USAGE);
      return;
    }
    if (arg === '--http' || arg.startsWith('--http=')) {
      if (http !== undefined) usageError('--http is given twice.');
      const value = arg === '--http' ? args[(i += 1)] : arg.slice('--http='.length);
      if (!value || value.startsWith('-')) usageError('--http needs the public https URL of the app.');
      http = value;
      continue;
    }
    if (arg === '--distributed') {
      distributed = true;
      continue;
    }
    usageError(`Unknown argument "${arg}".`);
  }

  const manifest = readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8');
  if (http === undefined) {
    if (distributed) usageError('--distributed needs --http: installs need a public https URL.');
    process.stdout.write(manifest);
    return;
  }
  const eventsUrl = slackEventsUrl(http);
  if (!eventsUrl.ok) usageError(eventsUrl.message);
  const forHttp = httpManifest(manifest, eventsUrl.url);
  process.stdout.write(distributed ? distributedManifest(forHttp, eventsUrl.url) : forHttp);
}

main(process.argv.slice(2));
