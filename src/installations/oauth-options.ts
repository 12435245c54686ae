import type { HTTPReceiverOptions } from '@slack/bolt';
import type { Config } from '../config/config.js';
import type { Logger } from '../logging/create-logger.js';
import { SecretBox } from '../secrets/secret-box.js';
import type { Store } from '../store/store.js';
import { BOT_SCOPES } from './bot-scopes.js';
import { installFailed, installPage, installPageHeaders, installSucceeded } from './install-pages.js';
import { SqlInstallationStore } from './installation-store.js';
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
 * once, and the app's pages for each outcome. Bolt authorizes each request from the installation store, and
 * rotates a token that expires within two hours (storing the new one).
 */
export function oauthReceiverOptions(
  config: Config,
  distribution: NonNullable<Config['distribution']>,
  store: Store,
  logger: Logger,
): { options: Partial<HTTPReceiverOptions>; installations: SqlInstallationStore } {
  const installations = new SqlInstallationStore(
    store,
    new SecretBox(config.secretKeys),
    logger.child({ component: 'installations' }),
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
