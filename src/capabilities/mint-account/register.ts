import type { App } from '@slack/bolt';
import type { CapabilityDeps } from '../../deps.js';
import { type ButtonRequest, type FormRequest, listen } from '../../platform/slack/pipeline/listen.js';
import { refused, upstreamFailed } from '../../platform/slack/pipeline/request-ended.js';
import { openModal } from '../../platform/blocks/open-modal.js';
import { slackErrorText } from '../../platform/blocks/slack-error-text.js';
import { updateModal } from '../../platform/blocks/update-modal.js';
import { AccountAdmins } from './account-admins.js';
import { ACCOUNT_BLOCKS, checkConnectForm, connectFormView, connectedView, savingView } from './connect-form.js';
import { mintAccountHomeEntry } from './home-entry.js';
import { MINT_ACCOUNT } from './actions.js';

type Operation = 'mint_account.connect' | 'mint_account.replace' | 'mint_account.remove';

const OPERATOR_ACCOUNT =
  'In this deployment Mintlink uses the Mint account its operator set up (MINT_API_KEY): there is nothing to connect in Slack.';

/**
 * Each workspace's own Mint account (distribution mode): on App Home for its admins (the installer and the
 * settings admins), the form that takes the key, Replace and Remove; every change audited (the last four
 * characters of the key, never the key) and shown on the other admins' Homes. A click or a submission from
 * anyone else, forged or not, is refused and audited. When the workspace removes the app, its key goes too.
 */
export function register(app: App, deps: CapabilityDeps): void {
  const on = listen(app, deps);
  const logger = deps.logger.child({ capability: 'mint-account' });
  const accounts = deps.mintAccounts;
  const admins = new AccountAdmins(deps.store, deps.settingsAdmins);
  deps.home.add(mintAccountHomeEntry(accounts, admins));
  /**
   * Refreshes the Homes of a workspace's admins, and of `userId` who changed its account (cached checks: a
   * Home shows what a minute-old answer says anyway).
   */
  const refreshAdminsOf = (teamId: string, userId?: string) =>
    deps.home.refreshWorkspace(teamId, async (user) => user === userId || (await admins.check(user, teamId)).admin);

  // The service refused the key, or takes it again: its admins see it without opening Home again.
  accounts.onChange(({ teamId, change }) => {
    if (change === 'refused' || change === 'accepted') refreshAdminsOf(teamId);
  });
  deps.workspaces.onUninstall(async (teamId) => {
    const removed = await accounts.remove(teamId, { by: 'system', origin: 'app uninstalled' });
    if (removed) logger.info({ team: teamId }, 'the workspace removed the app: its Mint API key is deleted');
  });
  // The accounts' connections close with the app (the operator's client is closed by whoever made it).
  deps.background.add(() => () => accounts.close());

  /** Lets an admin through; anyone else is refused, and the attempt audited. */
  async function requireAdmin(userId: string, teamId: string, operation: Operation): Promise<void> {
    if (!accounts.distributed) throw refused(OPERATOR_ACCOUNT);
    const check = await admins.check(userId, teamId, { fresh: true });
    if (check.admin) return;
    await deps.store.audit.record({
      actorId: userId,
      teamId,
      operation,
      inputs: {},
      outcome: 'refused',
      detail: check.problem ?? 'not the installer nor an admin of the workspace',
    });
    const installer = await admins.installerOf(teamId);
    throw refused(
      `:no_entry: Only the person who installed Mintlink${installer ? ` (<@${installer}>)` : ''} and the admins of this workspace can change its Mint account.${check.problem ? ` (${check.problem}.)` : ''}`,
    );
  }

  /** Connect and Replace open the same form: from Home or a message (views.open), or over a notice modal (push). */
  const openConnectForm = async ({ body, client, teamId }: ButtonRequest) => {
    const current = await accounts.account(teamId);
    await requireAdmin(body.user.id, teamId, current ? 'mint_account.replace' : 'mint_account.connect');
    const view = connectFormView({
      current,
      baseUrl: deps.config.mintBaseUrlPerWorkspace ? { defaultBaseUrl: deps.config.mint.baseUrl } : undefined,
    });
    if (body.view?.type !== 'modal') return openModal(client, body.trigger_id, view);
    try {
      await client.views.push({ trigger_id: body.trigger_id, view });
    } catch (error) {
      throw upstreamFailed(`:x: The form could not be opened: ${slackErrorText(error)}`, {
        log: 'could not open the Mint account form',
        cause: error,
      });
    }
  };
  const saveAccount = async ({ ack, body, view, client, teamId }: FormRequest) => {
    const replacing = (await accounts.account(teamId)) !== undefined;
    await requireAdmin(body.user.id, teamId, replacing ? 'mint_account.replace' : 'mint_account.connect');
    const checked = checkConnectForm(view.state.values, {
      asked: deps.config.mintBaseUrlPerWorkspace,
      operators: deps.config.mint.baseUrl,
    });
    // Inline errors only: the key typed stays in Slack's form, and is never sent back to it.
    if (!checked.ok) return ack({ response_action: 'errors', errors: checked.errors });
    // Where the host leads now (a name may lead elsewhere later: every connection checks again).
    const reached = checked.baseUrl ? await accounts.checkBaseUrlAddress(checked.baseUrl) : undefined;
    if (reached && !reached.ok)
      return ack({ response_action: 'errors', errors: { [ACCOUNT_BLOCKS.baseUrl]: reached.problem } });
    await ack({ response_action: 'update', view: savingView(replacing) }); // a second delivery ends here
    const { account, previous } = await accounts.connect(
      teamId,
      { apiKey: checked.apiKey, baseUrl: checked.baseUrl },
      { by: body.user.id },
    );
    logger.info(
      { team: teamId, user: body.user.id, keyLast4: account.keyLast4, replaced: previous !== undefined },
      previous ? 'a workspace replaced its Mint API key' : 'a workspace connected its Mint account',
    );
    await updateModal(client, view.id, connectedView(account, previous), logger);
    refreshAdminsOf(teamId, body.user.id);
  };

  const removeAccount = async ({ body, teamId }: ButtonRequest) => {
    await requireAdmin(body.user.id, teamId, 'mint_account.remove');
    const removed = await accounts.remove(teamId, { by: body.user.id });
    if (removed) logger.info({ team: teamId, user: body.user.id }, 'a workspace removed its Mint account');
    refreshAdminsOf(teamId, body.user.id);
  };

  on.declared(MINT_ACCOUNT, {
    buttons: { connect: openConnectForm, replace: openConnectForm, remove: removeAccount },
    forms: { connect: saveAccount },
  });
}
