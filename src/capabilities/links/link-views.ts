import type { KnownBlock, ModalView } from '@slack/types';
import { recordHighlights, type MintRecord } from '../../platform/mint/mint-api-client.js';
import type { CreateLinkRequest } from '../../platform/mint/schemas.js';
import { context, message, section, type MessageContent } from '../../platform/blocks/blocks.js';
import { enumLabel } from '../../platform/blocks/choices.js';
import { LIMITS, truncate } from '../../platform/blocks/limits.js';
import { modal } from '../../platform/blocks/modal.js';
import { escapeMrkdwn, inlineCode, linkUrl, escapeStrayMrkdwn } from '../../platform/blocks/mrkdwn.js';
import { slackDate } from '../../platform/blocks/slack-date.js';
import { linkUrls } from '../../platform/mint/link-urls.js';

const TITLE = 'Create mint link';
const IDS_SHOWN = 20;

/** Shown at once on a valid submission, while the service works. */
export function creatingLinkView(nftId: string): ModalView {
  return modal({
    title: TITLE,
    close: 'Close',
    blocks: [
      section(`:hourglass_flowing_sand: Creating the mint link for NFT ${inlineCode(nftId)}…`),
      context('This takes a few seconds. The result also comes to you as a direct message, so you can close this.'),
    ],
  });
}

export function linkCreatedView(request: CreateLinkRequest, answer: MintRecord): ModalView {
  return modal({
    title: 'Mint link created',
    close: 'Done',
    clearOnClose: true,
    blocks: linkCreatedBlocks(request, answer),
  });
}

/*
 * The NFT ID is the user's, the URLs and the reason (which quotes the service) are the service's: all of it is
 * escaped, in the notification text as in the blocks.
 */

export function linkCreatedMessage(request: CreateLinkRequest, answer: MintRecord): MessageContent {
  const [url] = linkUrls(answer);
  return message(
    `Mint link created for NFT ${escapeMrkdwn(request.nftId)}${url ? `: ${linkUrl(url)}` : ''}`,
    linkCreatedBlocks(request, answer),
  );
}

export function linkFailedMessage(request: CreateLinkRequest, reason: string, maybeCreated = false): MessageContent {
  return message(
    `Could not create the mint link for NFT ${escapeMrkdwn(request.nftId)}. ${escapeStrayMrkdwn(reason)}`,
    [
      section(
        `:x: *Could not create the mint link* for NFT ${inlineCode(request.nftId)}.\n${escapeStrayMrkdwn(reason)}`,
      ),
      context(
        maybeCreated
          ? 'Once you know the mint link was not created, run `/mintlink link` to try again.'
          : 'Run `/mintlink link` to try again.',
      ),
    ],
  );
}

/** The outcome: the link (easy to copy) and the parameters it was created with. */
function linkCreatedBlocks(request: CreateLinkRequest, answer: MintRecord): KnownBlock[] {
  const urls = linkUrls(answer);
  const blocks: KnownBlock[] = [
    section(`:white_check_mark: *Mint link created* for NFT ${inlineCode(request.nftId)}.`),
  ];
  if (urls.length > 0) {
    const [first, ...others] = urls;
    const url = linkUrl(first ?? '');
    blocks.push(section(`*Link:* <${url}>\n\`\`\`${url}\`\`\``));
    if (others.length > 0)
      blocks.push(
        context(
          `Other URLs in the answer: ${others
            .slice(0, 5)
            .map((u) => `<${linkUrl(u)}>`)
            .join(' · ')}`,
        ),
      );
  } else {
    blocks.push(section(`The service did not return a link URL. Its answer: ${answerSummary(answer)}`));
  }
  blocks.push({ type: 'section', fields: parameterFields(request) });
  if (request.customerId?.length) blocks.push(section(customerIdsText(request.customerId)));
  return blocks;
}

function parameterFields(request: CreateLinkRequest) {
  const fields: Array<[string, string]> = [
    ['Wallet', enumLabel(request.walletOptions)],
    ['Link type', enumLabel(request.type ?? 'GENERAL')],
    ['Active', request.isActive === false ? 'No' : 'Yes'],
  ];
  if (request.email) fields.push(['Recipient email', escapeMrkdwn(request.email)]);
  if (request.maxCheckoutQuantity !== undefined)
    fields.push(['Max checkout quantity', String(request.maxCheckoutQuantity)]);
  if (request.startDate) fields.push(['Claim starts', slackDate(new Date(request.startDate))]);
  if (request.endDate) fields.push(['Claim ends', slackDate(new Date(request.endDate))]);
  return fields.map(([label, value]) => ({
    type: 'mrkdwn' as const,
    text: truncate(`*${label}*\n${value}`, LIMITS.sectionFieldText),
  }));
}

function customerIdsText(ids: readonly string[]): string {
  const shown = ids
    .slice(0, IDS_SHOWN)
    .map((id) => inlineCode(id))
    .join(', ');
  const more = ids.length > IDS_SHOWN ? ` and ${ids.length - IDS_SHOWN} more` : '';
  return `*Customer IDs* (${ids.length}): ${shown}${more}`;
}

/** A few of the answer's fields, when it carries no URL (its fields are not specified). */
function answerSummary(answer: MintRecord): string {
  const pairs = recordHighlights(answer).map(([k, v]) => `${escapeMrkdwn(k)}: ${inlineCode(v)}`);
  return pairs.length > 0 ? pairs.join(', ') : '_(no readable fields)_';
}
