import { App } from '@slack/bolt';
import { helpSubcommand } from './commands/help-subcommand.js';
import { CommandRegistry } from './commands/command-registry.js';
import { registerMintlinkCommand } from './commands/mintlink-command.js';
import { startDeletionSweeper, sweeperTiming } from './customers/deletion-sweeper.js';
import { registerCustomers } from './customers/register-customers.js';
import type { Config } from './config/config.js';
import { healthRoutes } from './health/health-routes.js';
import { registerLinks } from './links/register-links.js';
import type { InFlight } from './lifecycle/in-flight.js';
import type { Readiness } from './lifecycle/readiness.js';
import { boltLogger } from './logging/bolt-logger.js';
import type { Logger } from './logging/create-logger.js';
import type { Scrubber } from './logging/secret-scrubber.js';
import type { Metrics } from './metrics/metrics.js';
import type { MintApiClient } from './mint-api/mint-api-client.js';
import { webClientOptions } from './slack-api/web-client-options.js';
import type { Store } from './store/store.js';
import { registerTemplates } from './templates/register-templates.js';
import { registerWallets } from './wallets/register-wallets.js';
import { Routes } from './slack-ui/routes.js';
import { Approvers } from './customers/approvers.js';
import { deletionRequestView } from './customers/deletion-request-form.js';
import { deletionSettings, notConfiguredText } from './customers/deletion-settings.js';
import { HomePublisher, type HomeRefresher } from './home/home-publisher.js';
import { registerHome } from './home/register-home.js';
import { linkFormView } from './links/link-form.js';
import { noticeModal } from './slack-ui/notice-modal.js';
import { browseTemplatesView } from './templates/browse-templates-form.js';
import { walletFormView } from './wallets/wallet-form.js';

export interface AppDeps {
  config: Config;
  logger: Logger;
  scrub: Scrubber;
  metrics: Metrics;
  store: Store;
  mintApi: MintApiClient;
  readiness: Readiness;
  inFlight: InFlight;
}

/** What the capabilities get: the app's parts, and the Home tabs to refresh after a change. */
export interface FeatureDeps extends AppDeps {
  home: HomeRefresher;
}

export interface MintlinkApp {
  app: App;
  /** Starts the periodic work (the deletion sweeper); returns a function that stops it. */
  startBackgroundWork(): () => Promise<void>;
}

/** The Bolt app: Socket Mode when an app token is configured, else HTTP on /slack/events. */
export function createApp(deps: AppDeps): MintlinkApp {
  const { config } = deps;
  const common = {
    token: config.slack.botToken,
    logger: boltLogger(deps.logger),
    deferInitialization: true, // main() runs init() to check the token and report a bad one clearly
    // Neither conversation state nor message events are used: skip their middleware on every request.
    convoStore: false as const,
    ignoreSelf: false,
    clientOptions: webClientOptions(config.slack.apiUrl),
    customRoutes: healthRoutes(deps),
  };
  const app =
    config.mode === 'socket'
      ? new App({ ...common, socketMode: true, appToken: config.slack.appToken, installerOptions: { port: config.port } })
      : new App({ ...common, signingSecret: config.slack.signingSecret, port: config.port });

  app.error(async (error) => {
    deps.logger.error({ err: error }, 'listener failed');
  });

  const commands = new CommandRegistry();
  const routes = new Routes();
  const approvers = new Approvers(config.deletion.approvers, app.client, deps.logger);
  const deletionConfig = deletionSettings(config);
  const home = new HomePublisher(
    {
      store: deps.store,
      approvers,
      status: () => ({
        mode: config.mode,
        deletion: deletionConfig.ok ? { settings: deletionConfig.settings, approvers: approvers.mentions() } : { missing: deletionConfig.missing },
        mint: deps.mintApi.status,
      }),
    },
    app.client,
    deps.inFlight,
    deps.logger,
  );
  const features = { ...deps, home };
  registerLinks(routes, commands, features);
  registerWallets(routes, commands, features);
  registerTemplates(routes, commands, features);
  const deletion = registerCustomers(routes, commands, features, app.client, approvers);
  registerHome(app, routes, {
    store: deps.store,
    approvers,
    logger: deps.logger,
    publisher: home,
    approvalChannel: deletion.settings?.approvalChannelId,
    forms: {
      link: () => linkFormView(),
      wallet: () => walletFormView(),
      deletion: () => (deletion.settings ? deletionRequestView() : noticeModal('Request deletion', notConfiguredText(deletion.missingSettings))),
      templates: () => browseTemplatesView(),
    },
  });
  commands.register(helpSubcommand(commands));
  registerMintlinkCommand(app, commands, { ...deps, maxWorkInFlight: config.maxWorkInFlight });
  routes.install(app, deps.inFlight, deps.logger);
  return {
    app,
    startBackgroundWork: () => startDeletionSweeper(deletion, sweeperTiming(config.mint.timeoutMs)),
  };
}
