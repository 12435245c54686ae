import type { HTTPReceiverOptions } from '@slack/bolt';
import { WebClient } from '@slack/web-api';
import type { Config } from '../../platform/ops/config/config.js';
import { boltLogger } from '../../platform/ops/telemetry/bolt-logger.js';
import type { Logger } from '../../platform/ops/telemetry/create-logger.js';
import { type SlackCallHooks, webClientOptions } from '../../platform/slack/web-api/web-client-options.js';
import { SecretBox } from '../../platform/secrets/secret-box.js';
import type { Store } from '../../platform/store/store.js';
import { BOT_SCOPES } from './bot-scopes.js';
import { installFailed, installPage, installPageHeaders, installSucceeded } from './install-pages.js';
import { type RenewToken, SqlInstallationStore } from './installation-store.js';
import { OnceOnlyStateStore, STATE_TTL_SECONDS } from './oauth-state.js';

export const INSTALL_PATH = '/slack/install';
export const OAUTH_REDIRECT_PATH = '/slack/oauth_redirect';

/** Slack's consent screen, next to its Web API (https://slack.com/api/ -> https://slack.com/oauth/v2/authorize). */
export function authorizationUrl(apiUrl: string): string {
  return new URL('../oauth/v2/authorize', apiUrl).toString();
}

/**
 * Distribution mode's part of Bolt's HTTPReceiver: Bolt's own OAuth flow (InstallProvider) on /slack/install
 * and /slack/oauth_redirect, installations in the app's database with their tokens sealed, a state that works
 * once, and the app's pages for each outcome. Bolt authorizes each request from the installation store, which
 * renews a token that expires within two hours (once for every replica: see SqlInstallationStore).
 */
export function oauthReceiverOptions(
  config: Config,
  distribution: NonNullable<Config['distribution']>,
  store: Store,
  logger: Logger,
  hooks: SlackCallHooks,
): { options: Partial<HTTPReceiverOptions>; installations: SqlInstallationStore } {
  const installationsLogger = logger.child({ component: 'installations' });
  const installations = new SqlInstallationStore(
    store,
    new SecretBox(config.secretKeys),
    installationsLogger,
    slackTokenRenewal(config.slack.apiUrl, distribution, hooks, installationsLogger),
  );
  const states = new OnceOnlyStateStore(distribution.stateSecret, store.onceKeys);
  return {
    installations,
    options: {
      clientId: distribution.clientId,
      clientSecret: distribution.clientSecret,
      stateSecret: distribution.stateSecret,
      scopes: [...BOT_SCOPES],
      installationStore: installations,
      installerOptions: {
        installPath: INSTALL_PATH,
        redirectUriPath: OAUTH_REDIRECT_PATH,
        stateStore: states,
        stateCookieExpirationSeconds: STATE_TTL_SECONDS,
        authorizationUrl: authorizationUrl(config.slack.apiUrl),
        // oauth.v2.access and auth.test go to the same Slack as every other call (GovSlack, tests).
        clientOptions: { slackApiUrl: config.slack.apiUrl },
        renderHtmlForInstallPath: installPage,
        installPathOptions: { beforeRedirection: installPageHeaders },
        callbackOptions: {
          success: (installation, _options, req, res) => installSucceeded(installation, req, res),
          failure: (error, _options, req, res) => {
            logger.warn({ code: error.code, reason: error.message }, 'an install did not complete');
            installFailed(error, req, res, states);
          },
        },
      },
    },
  };
}

/**
 * Renews a token at Slack (token rotation): oauth.v2.access with the app's credentials and the refresh token.
 * A call that may have reached Slack is never sent again (oauth.v2.access is one of UNREPEATABLE_METHODS): the
 * refresh token would be spent by the first, and the second refused.
 */
export function slackTokenRenewal(
  apiUrl: string,
  distribution: NonNullable<Config['distribution']>,
  hooks: SlackCallHooks,
  logger: Logger,
): RenewToken {
  // The body carries the client secret and the refresh token to Slack, where they belong: the scrubber that
  // keeps secrets out of every other call's body would blank them (logs are scrubbed as ever).
  const client = new WebClient(undefined, {
    ...webClientOptions(apiUrl, { ...hooks, scrub: (text) => text }),
    logger: boltLogger(logger),
  });
  return async (refreshToken) => {
    const answer = await client.oauth.v2.access({
      client_id: distribution.clientId,
      client_secret: distribution.clientSecret,
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
    });
    if (!answer.access_token || !answer.refresh_token || typeof answer.expires_in !== 'number')
      throw new Error('oauth.v2.access answered without a renewed token');
    return { token: answer.access_token, refreshToken: answer.refresh_token, expiresIn: answer.expires_in };
  };
}
