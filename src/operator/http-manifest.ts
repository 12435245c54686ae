/*
 * The YAML library is loaded only when a manifest is made (`npm run manifest`): it is a production dependency
 * left out of the app's bundle (package.json's build script, --external:yaml), so that its half a megabyte of
 * code costs nothing at the app's start (bundled, it would take about 40 ms of CPU from each start).
 */
const loadYaml = () => import('yaml');

/** The one path where the app takes Slack's requests in HTTP mode: commands, interactions and events. */
export const SLACK_EVENTS_PATH = '/slack/events';

export type EventsUrlResult = { ok: true; url: string } | { ok: false; message: string };

/**
 * The request URL Slack is to call, from the public base URL the operator gives (`https://host`, or with a path
 * prefix a proxy strips, or the full `https://host/slack/events`). Slack sends requests only to https URLs.
 */
export function slackEventsUrl(input: string): EventsUrlResult {
  const refuse = (why: string, shown = `"${input}"`): EventsUrlResult => ({
    ok: false,
    message: `${shown} is not a usable public URL: ${why} (for example https://mintlink.example.com).`,
  });
  if (!URL.canParse(input)) return refuse('it is not a URL');
  const url = new URL(input);
  // Not echoed: it holds a password.
  if (url.username || url.password) return refuse('it must not carry a user name or password', 'The --http URL');
  if (url.protocol !== 'https:') return refuse('Slack sends its requests only to https:// URLs');
  if (!url.hostname) return refuse('it has no host');
  if (url.search || url.hash || input.includes('?') || input.includes('#'))
    return refuse('it must not have a query (?...) or a fragment (#...)');
  const path = url.pathname.replace(/\/+$/, '');
  url.pathname = path.endsWith(SLACK_EVENTS_PATH) ? path : `${path}${SLACK_EVENTS_PATH}`;
  return { ok: true, url: url.href };
}

const HTTP_HEADER = (eventsUrl: string) =>
  [
    ' Slack app manifest for HTTP mode, generated from manifest.yml by `npm run manifest -- --http <public URL>`.',
    ' https://api.slack.com/apps -> Create New App -> From a manifest -> paste this file',
    ' (for an existing app: its App Manifest page).',
    ' Slack sends the /mintlink command, interactivity and events to',
    `   ${eventsUrl}`,
    ' Run the app there in HTTP mode: SLACK_APP_TOKEN unset, SLACK_SIGNING_SECRET set (docs/operating.md).',
  ].join('\n');

/**
 * manifest.yml turned to HTTP mode: Socket Mode off, and the slash commands' `url`,
 * `settings.interactivity.request_url` and `message_menu_options_url` (select menus' options), and
 * `settings.event_subscriptions.request_url` all set to `eventsUrl`.
 * Everything else is kept as it is.
 */
export async function httpManifest(manifestYaml: string, eventsUrl: string): Promise<string> {
  const { isMap, isSeq, parseDocument } = await loadYaml();
  const doc = parseDocument(manifestYaml);
  if (doc.errors.length > 0) throw new Error(`manifest.yml is not valid YAML: ${doc.errors[0]?.message}`);

  const commands = doc.getIn(['features', 'slash_commands']);
  if (!isSeq(commands) || commands.items.length === 0)
    throw new Error('manifest.yml declares no slash command under features.slash_commands');
  for (const command of commands.items) {
    if (!isMap(command)) throw new Error('manifest.yml has a slash command that is not a mapping');
    command.delete('url');
    // Right after `command:`, where Slack's own manifests keep it.
    command.items.splice(1, 0, doc.createPair('url', eventsUrl));
  }
  doc.setIn(['settings', 'interactivity', 'request_url'], eventsUrl);
  // The settings form's user-group pickers load their options from the app (block_suggestion).
  doc.setIn(['settings', 'interactivity', 'message_menu_options_url'], eventsUrl);
  const events = doc.getIn(['settings', 'event_subscriptions']);
  if (isMap(events)) {
    events.delete('request_url');
    events.items.unshift(doc.createPair('request_url', eventsUrl));
  } else {
    doc.setIn(['settings', 'event_subscriptions', 'request_url'], eventsUrl);
  }
  doc.setIn(['settings', 'socket_mode_enabled'], false);

  // The file's own header tells how to switch modes by hand; this one says what this output is.
  const contents = doc.contents;
  const firstKey = isMap(contents) ? contents.items[0]?.key : undefined;
  if (firstKey && typeof firstKey === 'object' && 'commentBefore' in firstKey) firstKey.commentBefore = undefined;
  doc.commentBefore = HTTP_HEADER(eventsUrl);
  return doc.toString({ lineWidth: 120 });
}

/** Where Slack sends an installer back after its consent screen (Bolt's OAuth redirect path). */
export function oauthRedirectUrl(eventsUrl: string): string {
  const url = new URL(eventsUrl);
  url.pathname = `${url.pathname.slice(0, -SLACK_EVENTS_PATH.length)}/slack/oauth_redirect`;
  return url.href;
}

/**
 * The HTTP-mode manifest for distribution mode ("Add to Slack" in many workspaces): the OAuth redirect URL
 * next to /slack/events, and token rotation on (Bolt renews tokens before they expire).
 */
export async function distributedManifest(httpManifestYaml: string, eventsUrl: string): Promise<string> {
  const { parseDocument } = await loadYaml();
  const doc = parseDocument(httpManifestYaml);
  doc.setIn(['oauth_config', 'redirect_urls'], doc.createNode([oauthRedirectUrl(eventsUrl)]));
  doc.setIn(['settings', 'token_rotation_enabled'], true);
  doc.commentBefore = `${doc.commentBefore ?? ''}\n Distribution mode (--distributed): installs come back to ${oauthRedirectUrl(eventsUrl)};\n token rotation is on. Set SLACK_CLIENT_ID, SLACK_CLIENT_SECRET, SLACK_STATE_SECRET, SECRETS_KEYS.`;
  return doc.toString({ lineWidth: 120 });
}
