import type { WebClient } from '@slack/web-api';
import { REFUSED_BY_MINTLINK_HEADER } from '../../platform/slack/http-front/slack-http-server.js';
import { BOT_SCOPES } from '../installations/bot-scopes.js';
import { slackErrorCode } from '../../platform/slack/web-api/slack-error-code.js';
import { fail, listed, pass, type SetupItem, shownUrl, warn, withoutUserinfo } from './setup-items.js';

/** Who the bot token belongs to, when Slack took it. */
export interface BotIdentity {
  teamId: string;
  teamName: string;
  botUserId: string;
}

/** What the person fixing a token can do: the operator edits .env; a workspace installs the app again. */
export type TokenOwner = 'operator' | 'workspace';

const REINSTALL = {
  operator:
    'reinstall the app to the workspace (api.slack.com/apps -> your app -> OAuth & Permissions -> Reinstall), put its Bot User OAuth Token in SLACK_BOT_TOKEN and restart the app',
  workspace: 'install the app to this workspace again (Add to Slack, at /slack/install)',
} as const;

/**
 * auth.test with the bot token: Slack takes it, and the scopes it reports (the `x-oauth-scopes` header of
 * its answer) cover the manifest's bot scopes.
 */
export async function checkBotToken(
  client: WebClient,
  owner: TokenOwner,
  apiUrl: string | undefined,
): Promise<{ item: SetupItem; identity: BotIdentity | undefined }> {
  let answer: Awaited<ReturnType<WebClient['auth']['test']>>;
  try {
    answer = await client.auth.test();
  } catch (error) {
    const code = slackErrorCode(error);
    if (code === undefined)
      return {
        item: fail(
          'bot-token',
          `Slack bot token: could not reach Slack${at(apiUrl)} (${reasonOf(error)})`,
          'Check the network and SLACK_API_URL, then run this again.',
        ),
        identity: undefined,
      };
    const revoked = ['token_revoked', 'account_inactive', 'token_expired'].includes(code);
    return {
      item: fail(
        'bot-token',
        `Slack bot token: Slack refuses it (${code})`,
        revoked
          ? `The token no longer works: ${REINSTALL[owner]}.`
          : owner === 'operator'
            ? 'Copy the Bot User OAuth Token (xoxb-...) from api.slack.com/apps -> your app -> OAuth & Permissions into SLACK_BOT_TOKEN and restart the app.'
            : `${capitalized(REINSTALL.workspace)}.`,
      ),
      identity: undefined,
    };
  }
  const identity = { teamId: answer.team_id ?? '', teamName: answer.team ?? '', botUserId: answer.user_id ?? '' };
  const where = `workspace ${identity.teamName || identity.teamId} (${identity.teamId})`;
  const granted = answer.response_metadata?.scopes;
  if (!granted)
    return {
      item: warn(
        'bot-token',
        `Slack bot token: works in ${where}, but Slack did not say which scopes it has`,
        'Check the Bot Token Scopes under OAuth & Permissions against manifest.yml.',
      ),
      identity,
    };
  const missing = BOT_SCOPES.filter((scope) => !granted.includes(scope));
  if (missing.length > 0)
    return {
      item: fail(
        'bot-token',
        `Slack bot token: works in ${where}, but lacks the scope${missing.length === 1 ? '' : 's'} ${listed(missing)}`,
        `Add ${listed(missing)} to the Bot Token Scopes (OAuth & Permissions, or create the app again from manifest.yml), then ${REINSTALL[owner]}.`,
      ),
      identity,
    };
  return {
    item: pass('bot-token', `Slack bot token: works in ${where}, with every scope the manifest asks for`),
    identity,
  };
}

/** The bot token's item when an earlier check found Slack unreachable: one cause, one problem. */
export const BOT_TOKEN_NOT_CHECKED = warn(
  'bot-token',
  'Slack bot token: not checked, since Slack could not be reached (above)',
  'Run this again once Slack answers.',
);

/** Socket Mode: the app-level token opens a connection (apps.connections.open; the URL is not used). */
export async function checkSocketMode(appClient: WebClient, apiUrl: string | undefined): Promise<SetupItem> {
  try {
    await appClient.apps.connections.open();
    return pass('mode', 'Socket Mode: the app-level token opens a connection');
  } catch (error) {
    const code = slackErrorCode(error);
    if (code === undefined)
      return {
        ...fail(
          'mode',
          `Socket Mode: could not reach Slack${at(apiUrl)} (${reasonOf(error)})`,
          'Check the network and SLACK_API_URL, then run this again.',
        ),
        slackUnreachable: true,
      };
    const fix =
      code === 'not_allowed_token_type'
        ? 'Turn Socket Mode on in the app’s settings (Socket Mode -> Enable), or unset SLACK_APP_TOKEN to run in HTTP mode.'
        : code === 'missing_scope'
          ? 'Give the app-level token the connections:write scope (Basic Information -> App-Level Tokens), put it in SLACK_APP_TOKEN and restart the app.'
          : 'Create an App-Level Token with connections:write (Basic Information -> App-Level Tokens), put it in SLACK_APP_TOKEN and restart the app.';
    return fail('mode', `Socket Mode: Slack refuses the app-level token (${code})`, fix);
  }
}

/**
 * HTTP mode: Slack sends every request to PUBLIC_URL/slack/events, so it must be https and lead to this app.
 * An unsigned POST there is answered 401 by the app's screen of Slack's signature: that answer shows the
 * address reaches a Slack receiver, without sending anything the app would act on.
 */
export async function checkHttpMode(publicUrl: string | undefined, timeoutMs = 5_000): Promise<SetupItem> {
  if (!publicUrl)
    return warn(
      'mode',
      'HTTP mode: PUBLIC_URL is not set, so whether Slack reaches the app is not checked',
      'Set PUBLIC_URL to the https address Slack sends requests to (the URL given to npm run manifest -- --http).',
    );
  const events = `${publicUrl.replace(/\/+$/, '')}/slack/events`;
  const shown = shownUrl(events);
  if (!events.startsWith('https://'))
    return fail(
      'mode',
      `HTTP mode: ${shown} is not https`,
      'Slack sends requests to https addresses only: serve the app behind HTTPS and set PUBLIC_URL to that address.',
    );
  try {
    const response = await fetch(events, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
      redirect: 'manual', // Slack does not follow redirects: a login wall's redirect must not pass
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.body?.cancel();
    return judgeEventsAnswer(shown, response);
  } catch (error) {
    return fail(
      'mode',
      `HTTP mode: ${shown} does not answer (${reasonOf(error)})`,
      'Check that the app runs and the proxy forwards PUBLIC_URL to its PORT; PUBLIC_URL must be the address in the app’s Slack settings.',
    );
  }
}

/** ` at URL` (never its userinfo), or nothing where the reader is not the operator (`undefined`). */
function at(apiUrl: string | undefined): string {
  return apiUrl ? ` at ${shownUrl(apiUrl)}` : '';
}

/**
 * The app answers an unsigned request 401 with its own header (REFUSED_BY_MINTLINK_HEADER): any other answer,
 * a redirect or a 401 without it, is something in front of the app (a login wall, a proxy) or another server.
 */
export function judgeEventsAnswer(shown: string, response: Pick<Response, 'status' | 'headers'>): SetupItem {
  const forward =
    'Have the proxy forward PUBLIC_URL/slack/events to this app’s PORT, with no login in front, and set PUBLIC_URL to the address in the app’s Slack settings.';
  if (response.status === 401 && response.headers.get(REFUSED_BY_MINTLINK_HEADER))
    return pass('mode', `HTTP mode: ${shown} reaches the app`);
  if (response.status >= 300 && response.status < 400)
    return fail(
      'mode',
      `HTTP mode: ${shown} redirects (${response.status}${response.headers.get('location') ? ` to ${shownUrl(response.headers.get('location') ?? '')}` : ''}), and Slack does not follow redirects: a login wall or a proxy is in front of the app`,
      forward,
    );
  return fail(
    'mode',
    response.status === 401
      ? `HTTP mode: ${shown} answers 401, but not as the app does: a login wall or a proxy is in front of it`
      : `HTTP mode: ${shown} answers ${response.status}, not as the app does`,
    forward,
  );
}

function reasonOf(error: unknown): string {
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- reads optional fields of a thrown SDK error, each checked before it is used
  const e = error as { original?: { message?: string }; cause?: { code?: string; message?: string }; message?: string };
  return withoutUserinfo(e.cause?.code ?? e.original?.message ?? e.cause?.message ?? e.message ?? String(error));
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
