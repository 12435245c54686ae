import { type App, HTTPReceiver } from '@slack/bolt';
import { admission } from './admission/admission-middleware.js';
import * as bulk from './bulk/register.js';
import { accessLog } from './observability/access-log.js';
import { TracedApp } from './observability/traced-app.js';
import { CommandRegistry } from './commands/command-registry.js';
import { registerMintlinkCommand } from './commands/mintlink-command.js';
import * as auditExport from './audit-export/register.js';
import * as deletionApproval from './deletion-approval/register.js';
import type { AppDeps, BackgroundWork, CapabilityDeps } from './deps.js';
import { healthRoutes } from './health/health-routes.js';
import { HomePublisher } from './home/home-publisher.js';
import { slackHttpServer } from './http-front/slack-http-server.js';
import * as home from './home/register.js';
import * as links from './links/register.js';
import { boltLogger } from './logging/bolt-logger.js';
import { slackCallHooks } from './observability/slack-call-hooks.js';
import { webClientOptions } from './slack-api/web-client-options.js';
import * as templates from './templates/register.js';
import * as wallets from './wallets/register.js';

export interface MintlinkApp {
  app: App;
  /** Starts taking Slack's requests: the Socket Mode connection, or the HTTP server on PORT. */
  start(): Promise<void>;
  /** Stops taking requests (work in flight goes on). */
  stop(): Promise<void>;
  /** Starts the capabilities' periodic work; returns a function that stops it. */
  startBackgroundWork(): () => Promise<void>;
}

/** The Bolt app: Socket Mode when an app token is configured, else HTTP on /slack/events. Wiring only. */
export function createApp(deps: AppDeps): MintlinkApp {
  const { config } = deps;
  const common = {
    token: config.slack.botToken,
    logger: boltLogger(deps.logger),
    deferInitialization: true, // main() runs init() to check the token and report a bad one clearly
    clientOptions: webClientOptions(config.slack.apiUrl, slackCallHooks(deps)),
    customRoutes: healthRoutes(deps),
  };
  // HTTP mode: Bolt's own receiver, behind a server that screens Slack's endpoint (src/http-front).
  const signingSecret = config.slack.signingSecret ?? '';
  const receiver =
    config.mode === 'http'
      ? new HTTPReceiver({
          signingSecret,
          customRoutes: common.customRoutes,
          logger: common.logger,
          // The server in front checks every signature on the Slack endpoint before Bolt sees the request.
          signatureVerification: false,
        })
      : undefined;
  const app = receiver
    ? new TracedApp({ ...common, receiver })
    : new TracedApp({
        ...common,
        socketMode: true,
        appToken: config.slack.appToken,
        installerOptions: { port: config.port },
      });
  const server = receiver ? slackHttpServer(receiver, signingSecret, deps.logger) : undefined;
  app.error(async (error) => {
    deps.logger.error({ err: error }, 'listener failed');
  });
  app.use(accessLog(deps));
  app.use(admission(deps.work, deps));

  const publisher = new HomePublisher({ ...deps, client: app.client, mode: config.mode, mint: deps.mintApi.status });
  const background: BackgroundWork[] = [];
  const capabilityDeps: CapabilityDeps = {
    ...deps,
    commands: new CommandRegistry(),
    home: publisher,
    background: { add: (work) => background.push(work) },
  };
  for (const capability of [links, wallets, bulk, templates, deletionApproval, auditExport])
    capability.register(app, capabilityDeps);
  home.register(app, { ...deps, publisher });
  registerMintlinkCommand(app, capabilityDeps.commands, deps);

  return {
    app,
    start: async () => {
      if (!server) return void (await app.start());
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(config.port, () => resolve());
      });
    },
    stop: async () => {
      if (!server) return void (await app.stop());
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Keep-alive connections with no request in progress would hold close() open (a load balancer's pool),
      // and a client trickling a request would hold it for ever: after 2 s every connection is closed (work
      // already admitted goes on; it does not need its connection).
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), 2_000);
      await closed;
      clearTimeout(timer);
    },
    startBackgroundWork: () => {
      const stops = background.map((start) => start());
      return async () => {
        await Promise.all(stops.map((stop) => stop()));
      };
    },
  };
}
