import { type App, AuthorizationError, HTTPReceiver } from '@slack/bolt';
import type { AppDeps } from '../../deps.js';
import { healthRoutes } from '../ops/health/health-routes.js';
import { closeServer, listen, slackHttpServer } from './http-front/slack-http-server.js';
import { SLACK_BODY_LIMIT_BYTES } from './http-front/slack-request-screen.js';
import { boltLogger } from '../ops/telemetry/bolt-logger.js';
import { TracedApp } from '../ops/telemetry/traced-app.js';
import { oauthReceiverOptions } from '../../tenancy/installations/oauth-options.js';
import type { SqlInstallationStore } from '../../tenancy/installations/installation-store.js';
import type { AuthorizeWorkspace } from '../../tenancy/workspaces/workspaces.js';
import { webClientOptions } from './web-api/web-client-options.js';
import type { SlackInProcess } from './slack-in-process.js';

export interface BoltTransport {
  app: App;
  /** Distribution mode: Bolt's authorization of a workspace (renewing its token) and its installation store. */
  installs?: { authorize: AuthorizeWorkspace; installations: SqlInstallationStore };
  /** Starts taking Slack's requests: the Socket Mode connection, or the HTTP server on PORT. */
  start: () => Promise<void>;
  /** Stops taking requests (work in flight goes on). */
  stop: () => Promise<void>;
}

/**
 * The Bolt App in the configured transport: Socket Mode when an app token is configured, else HTTP on
 * /slack/events through Bolt's own HTTPReceiver, behind the server that screens Slack's endpoint (http-front).
 * In distribution mode the receiver also runs Bolt's OAuth flow, and Bolt authorizes each request from the
 * installation store instead of one bot token. `slackInProcess`: a test's Slack in its own process instead
 * (TestSeams.slack; main() gives none).
 */
export function boltApp(deps: AppDeps, slackInProcess?: SlackInProcess): BoltTransport {
  const transport = boltTransport(deps, slackInProcess);
  transport.app.error((error) => {
    // A request from a workspace without an installation: the installation store said so in one line already.
    if (!(error instanceof AuthorizationError)) deps.logger.error({ err: error }, 'listener failed');
    return Promise.resolve();
  });
  return transport;
}

function boltTransport(deps: AppDeps, slackInProcess: SlackInProcess | undefined): BoltTransport {
  const { config } = deps;
  const common = {
    token: config.slack.botToken,
    logger: boltLogger(deps.logger),
    deferInitialization: true, // startMintlink() runs init() to check the token and report a bad one clearly
    clientOptions: webClientOptions(config.slack.apiUrl, deps.slackCalls),
    customRoutes: healthRoutes(deps),
    // No listener keeps conversation state; Bolt's default store would look every request up (and build an
    // Error for each one that has none).
    convoStore: false as const,
  };
  if (slackInProcess) {
    const { receiver } = slackInProcess;
    const installs = config.distribution ? inProcessInstalls(deps, config.distribution) : undefined;
    const app = new TracedApp({ ...common, receiver, ...(installs ? { authorize: installs.authorize } : {}) });
    return {
      app,
      start: async () => void (await receiver.start()),
      stop: async () => void (await receiver.stop()),
      ...(installs ? { installs } : {}),
    };
  }
  if (config.mode === 'socket') {
    const app = new TracedApp({
      ...common,
      socketMode: true,
      appToken: config.slack.appToken,
      installerOptions: { port: config.port },
    });
    return { app, start: async () => void (await app.start()), stop: async () => void (await app.stop()) };
  }
  const signingSecret = config.slack.signingSecret ?? '';
  const oauth = config.distribution
    ? oauthReceiverOptions(config, config.distribution, deps.store, deps.logger, deps.slackCalls)
    : undefined;
  const receiver = new HTTPReceiver({
    ...oauth?.options,
    signingSecret,
    customRoutes: common.customRoutes,
    logger: common.logger,
    // The server in front checks every signature on the Slack endpoint before Bolt sees the request.
    signatureVerification: false,
    // Bolt's own cap, the same as the screen's: what reaches it has been read within it already.
    bodyLimit: SLACK_BODY_LIMIT_BYTES,
  });
  const app = new TracedApp({ ...common, receiver });
  const server = slackHttpServer(receiver, signingSecret, deps.logger);
  const { installer } = receiver;
  return {
    app,
    start: () => listen(server, config.port, config.host),
    stop: () => closeServer(server),
    ...(oauth && installer
      ? { installs: { authorize: (query) => installer.authorize(query), installations: oauth.installations } }
      : {}),
  };
}

/**
 * Distribution mode with Slack in the test's process: the OAuth set-up of the HTTP transport (the same
 * HTTPReceiver options, installation store and renewal), whose installer (Bolt's InstallProvider) authorizes
 * each request from the installation store as it does over HTTP. Its HTTP server never starts: installs over
 * HTTP are the end-to-end tests' (test/tenancy/installations).
 */
function inProcessInstalls(
  deps: AppDeps,
  distribution: NonNullable<AppDeps['config']['distribution']>,
): NonNullable<BoltTransport['installs']> {
  const oauth = oauthReceiverOptions(deps.config, distribution, deps.store, deps.logger, deps.slackCalls);
  const { installer } = new HTTPReceiver({
    ...oauth.options,
    signingSecret: deps.config.slack.signingSecret ?? '',
    logger: boltLogger(deps.logger),
  });
  if (!installer) throw new Error("distribution mode without Bolt's installer: the OAuth options are incomplete");
  return { authorize: (query) => installer.authorize(query), installations: oauth.installations };
}
