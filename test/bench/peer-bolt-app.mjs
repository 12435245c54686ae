// The peer of `npm run bench`: a plain Bolt app doing the app's two benchmarked flows the way Bolt's docs
// write them, with the SDK's defaults (no tuning): `/mintlink` opens a link form with client.views.open, and
// `/mintlink templates <contractId> <limit>` fetches a page from the Mint service and posts it with respond().
import process from 'node:process';
import { App, LogLevel } from '@slack/bolt';

const MINT_API_BASE_URL = process.env.MINT_API_BASE_URL;
const MINT_API_KEY = process.env.MINT_API_KEY;

const app = new App({
  token: process.env.SLACK_BOT_TOKEN,
  signingSecret: process.env.SLACK_SIGNING_SECRET,
  port: Number(process.env.PORT),
  logLevel: LogLevel.WARN,
  clientOptions: { slackApiUrl: process.env.SLACK_API_URL },
});

app.command('/mintlink', async ({ command, ack, client, respond, logger }) => {
  const [subcommand, contractId, limit = '10'] = command.text.trim().split(/\s+/);
  if (!subcommand) {
    await ack();
    try {
      await client.views.open({ trigger_id: command.trigger_id, view: linkForm() });
    } catch (error) {
      logger.error(error);
    }
    return;
  }
  if (subcommand === 'templates' && contractId) {
    await ack();
    try {
      const url = `${MINT_API_BASE_URL}/v1/nft/template/${encodeURIComponent(contractId)}?limit=${encodeURIComponent(limit)}&orderBy=desc`;
      const response = await fetch(url, { headers: { 'x-api-key': MINT_API_KEY } });
      if (!response.ok) throw new Error(`Mint answered ${response.status}`);
      const body = await response.json();
      const templates = Array.isArray(body) ? body : (body.items ?? []);
      await respond({ response_type: 'in_channel', ...templatePage(contractId, templates, 0, Number(limit)) });
    } catch (error) {
      logger.error(error);
    }
    return;
  }
  await ack(`Usage: ${command.command} [templates <contractId> <limit>]`);
});

function templatePage(contractId, templates, offset, limit) {
  const page = (o) => JSON.stringify({ contractId, offset: o, limit });
  return {
    text: `Templates of ${contractId}`,
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: `Templates of ${contractId}` } },
      ...templates.map((template) => ({ type: 'section', text: { type: 'mrkdwn', text: `*${template.name}*` } })),
      {
        type: 'actions',
        elements: [
          {
            type: 'button',
            action_id: 'templates_previous',
            text: { type: 'plain_text', text: 'Previous' },
            value: page(Math.max(0, offset - limit)),
          },
          {
            type: 'button',
            action_id: 'templates_next',
            text: { type: 'plain_text', text: 'Next' },
            value: page(offset + limit),
          },
        ],
      },
    ],
  };
}

const option = (text, value) => ({ text: { type: 'plain_text', text }, value });
const input = (block_id, label, element, optional = false) => ({
  type: 'input',
  block_id,
  optional,
  label: { type: 'plain_text', text: label },
  element,
});

function linkForm() {
  return {
    type: 'modal',
    callback_id: 'link_form',
    title: { type: 'plain_text', text: 'Create mint link' },
    submit: { type: 'plain_text', text: 'Create' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [
      input('nft_id', 'NFT ID', { type: 'plain_text_input', action_id: 'value', max_length: 200 }),
      input('wallet', 'Wallet', {
        type: 'static_select',
        action_id: 'value',
        options: [option('Custodial', 'CUSTODIAL')],
        initial_option: option('Custodial', 'CUSTODIAL'),
      }),
      input('link_type', 'Link type', {
        type: 'static_select',
        action_id: 'value',
        options: [option('General', 'GENERAL')],
        initial_option: option('General', 'GENERAL'),
      }),
      input('email', 'Recipient email', { type: 'email_text_input', action_id: 'value' }, true),
      input('customer_ids', 'Customer IDs', { type: 'plain_text_input', action_id: 'value', multiline: true }, true),
      input(
        'max_quantity',
        'Max checkout quantity',
        { type: 'number_input', action_id: 'value', is_decimal_allowed: false, min_value: '1' },
        true,
      ),
      input('claim_start', 'Claim starts', { type: 'datetimepicker', action_id: 'value' }, true),
      input('claim_end', 'Claim ends', { type: 'datetimepicker', action_id: 'value' }, true),
      input('active', 'Status', {
        type: 'checkboxes',
        action_id: 'value',
        options: [option('Active', 'active')],
        initial_options: [option('Active', 'active')],
      }),
    ],
  };
}

await app.start();
process.stdout.write('peer bolt app started\n');
process.on('SIGTERM', () => void app.stop().then(() => process.exit(0)));
