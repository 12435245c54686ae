import type { Button, KnownBlock } from '@slack/types';
import type { HomeEntry } from '../../deps.js';
import type { MintAccount, MintAccounts } from '../../tenancy/mint-accounts/mint-accounts.js';
import { actionsRow, context, divider, section } from '../../platform/blocks/blocks.js';
import { inlineCode } from '../../platform/blocks/mrkdwn.js';
import { slackDate } from '../../platform/blocks/slack-date.js';
import type { AccountAdmins } from './account-admins.js';
import { MINT_ACCOUNT } from './actions.js';
import { buttonOf } from '../../platform/slack/pipeline/declarations.js';

/**
 * The workspace's Mint account on App Home, first among the sections: nothing works before it is connected.
 * Its admins (the installer, the settings admins) see it and its buttons; everyone else sees only that it is
 * not connected yet, and whom to ask.
 *
 * In single-workspace mode the entry shows nothing: the one account is the operator's MINT_API_KEY, nobody in
 * Slack can change it, and the status footer already says how the service answers. A section that offers no
 * action would only be noise on every Home.
 */
export function mintAccountHomeEntry(accounts: MintAccounts, admins: AccountAdmins): HomeEntry {
  return {
    order: 5,
    blocks: async (userId, teamId) => {
      if (!accounts.distributed || !teamId) return [];
      const [account, check] = await Promise.all([accounts.account(teamId), admins.check(userId, teamId)]);
      if (check.admin) return adminBlocks(account);
      if (account) return [];
      const installer = await admins.installerOf(teamId);
      return [
        section(
          `:electric_plug: *Mintlink is not connected to a Mint account yet*, so its commands do not work here. Ask ${installer ? `<@${installer}> (who installed it) or ` : ''}an admin of this workspace to connect it.`,
        ),
        divider(),
      ];
    },
  };
}

function adminBlocks(account: MintAccount | undefined): KnownBlock[] {
  const why = context(
    'You see this as the person who installed Mintlink or an admin of this workspace. The key is stored encrypted; only its last four characters are ever shown.',
  );
  if (!account)
    return [
      section(
        '*Mint account* · :electric_plug: not connected\nMintlink reaches the Mint service with your organization’s own API key. Until it is connected, every command, button and workflow step here answers that no Mint account is connected.',
      ),
      actionsRow(
        'mint_account',
        buttonOf(MINT_ACCOUNT.buttons.connect, { label: 'Connect your Mint account', style: 'primary' }),
      ),
      why,
      divider(),
    ];
  const where = account.baseUrl ? ` · service ${inlineCode(account.baseUrl, 200)}` : '';
  const blocks: KnownBlock[] = [
    section(
      `*Mint account* · ${account.refused ? ':warning: key refused' : ':white_check_mark: connected'}\nKey ending ${inlineCode(account.keyLast4)} · connected by <@${account.connectedBy}> ${slackDate(account.connectedAt)}${where}`,
    ),
  ];
  if (account.refused)
    blocks.push(
      section(
        `:warning: *The Mint service refused this key* (HTTP ${account.refused.status}) ${slackDate(account.refused.at)}: Mint calls from this workspace fail until the key is replaced. Check the key with your Mint service provider, then press *Replace key*.`,
      ),
    );
  blocks.push(
    actionsRow(
      'mint_account',
      buttonOf(MINT_ACCOUNT.buttons.replace, account.refused ? { style: 'primary' } : {}),
      removeButton(account),
    ),
    why,
    divider(),
  );
  return blocks;
}

/** Remove, after Slack's own confirmation dialog. */
function removeButton(account: MintAccount): Button {
  return buttonOf(MINT_ACCOUNT.buttons.remove, {
    style: 'danger',
    confirm: {
      title: { type: 'plain_text', text: 'Remove the Mint account?' },
      text: {
        type: 'mrkdwn',
        text: `Mintlink forgets the key ending ${inlineCode(account.keyLast4)}. Until someone connects an account again, every command and workflow step in this workspace answers that no Mint account is connected.`,
      },
      confirm: { type: 'plain_text', text: 'Remove' },
      deny: { type: 'plain_text', text: 'Cancel' },
      style: 'danger',
    },
  });
}
