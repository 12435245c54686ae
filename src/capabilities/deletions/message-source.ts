import { createHmac, timingSafeEqual } from 'node:crypto';
import { splitCustomerIds } from '../../platform/mint/customer-ids.js';
import { customerIdSchema } from '../../platform/mint/schemas.js';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../../platform/ops/telemetry/create-logger.js';
import type { DecisionKeys } from './decision-rules.js';

/** The message a deletion request was asked from (the message shortcut). */
export interface MessageSource {
  channel: string;
  ts: string;
}

/*
 * The source travels in the form's private_metadata, which comes back from the client: it is signed with the
 * decision keys (the first signs, any verifies: see decision-rules.ts), for the workspace the form was opened in, so a forged submission cannot attach another
 * message's permalink to a request, nor a message of another workspace.
 */

/** The channel of a signed source, to name it on the form (it is verified where it is used). */
export function sourceChannelOf(signed: string | undefined): string | undefined {
  const channel = signed?.split(':')[0];
  return channel && /^[CDG][A-Z0-9]{2,20}$/.test(channel) ? channel : undefined;
}

export function signSource(keys: DecisionKeys, teamId: string, source: MessageSource): string {
  return `${source.channel}:${source.ts}:${mac(keys[0], teamId, source)}`;
}

/** The source a form submitted in workspace `teamId` carries, if the app signed it for that workspace. */
export function verifySource(keys: DecisionKeys, teamId: string, signed: unknown): MessageSource | undefined {
  if (typeof signed !== 'string') return undefined;
  const match = /^([CDG][A-Z0-9]{2,20}):(\d{1,12}\.\d{1,8}):([A-Za-z0-9_-]{43})$/.exec(signed);
  if (!match?.[1] || !match[2] || !match[3]) return undefined;
  const source = { channel: match[1], ts: match[2] };
  const given = Buffer.from(match[3]);
  const signedByOne = keys.some((key) => {
    const expected = Buffer.from(mac(key, teamId, source));
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
  return signedByOne ? source : undefined;
}

function mac(key: Buffer, teamId: string, source: MessageSource): string {
  return createHmac('sha256', key)
    .update(`source\u0000${teamId}\u0000${source.channel}\u0000${source.ts}`)
    .digest('base64url');
}

/** The message's permalink, or undefined (it is context, not a condition: the request goes on without it). */
export async function permalinkOf(ctx: { client: WebClient; logger: Logger }, source: MessageSource) {
  try {
    const answer = await ctx.client.chat.getPermalink({ channel: source.channel, message_ts: source.ts });
    return typeof answer.permalink === 'string' && /^https:\/\/\S+$/.test(answer.permalink)
      ? answer.permalink
      : undefined;
  } catch (error) {
    ctx.logger.info({ err: error, channel: source.channel }, 'could not get the permalink of the message');
    return undefined;
  }
}

/**
 * Customer IDs in a message, read with the form's parser: from its code (`c-1`, or a code block) when it has
 * any; otherwise from its words, keeping those that look like ids rather than prose (with a digit or an @).
 * Either way only well-formed IDs are kept; the form shows them to the requester, who can change them.
 */
export function customerIdsInMessage(text: string): string[] {
  // Mentions, channels, links and special tokens (<@U1>, <#C1|x>, <https://…|x>, <!here>) are not IDs.
  const plain = text.replace(/<[^<>]*>/g, ' ');
  const code = [...plain.matchAll(/```([\s\S]*?)```|`([^`\n]+)`/g)].map((m) => m[1] ?? m[2] ?? '');
  const words = (code.length > 0 ? code : [plain])
    .flatMap((text) => splitCustomerIds(text))
    // Sentence punctuation stuck to a word ("c-2." ending a sentence, "(c-3)") is not part of it.
    .map((word) => word.replace(/[.:!?)\]]+$/, '').replace(/^[([]+/, ''))
    .filter((word) => code.length > 0 || /[\d@]/.test(word));
  return [...new Set(words.filter((word) => customerIdSchema.safeParse(word).success))];
}
