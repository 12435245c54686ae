import { setTimeout as sleep } from 'node:timers/promises';
import type { MessageContent } from '../slack-ui/blocks.js';
import type { DeletionContext } from './deletion-context.js';

/** Longest wait for Slack's rate limit between thread messages; beyond it the rest is left out, and logged. */
const MAX_RATE_LIMIT_WAIT_MS = 30_000;

/**
 * Replies in a thread, one message after the other. chat.postMessage allows about one message per second
 * per channel; a long list may hit that, so a 429 is waited out (the app's client does not retry them).
 */
export async function postThreadMessages(ctx: Pick<DeletionContext, 'client' | 'logger'>, channel: string, threadTs: string, messages: MessageContent[]): Promise<void> {
  for (const [i, content] of messages.entries()) {
    for (let attempt = 0; ; attempt += 1) {
      try {
        await ctx.client.chat.postMessage({ channel, thread_ts: threadTs, ...content });
        break;
      } catch (error) {
        const retryAfterSec = (error as { retryAfter?: number }).retryAfter;
        if (retryAfterSec === undefined || attempt >= 3 || retryAfterSec * 1000 > MAX_RATE_LIMIT_WAIT_MS) {
          ctx.logger.error({ err: error, part: i + 1, of: messages.length }, 'could not post the full list in the thread');
          return;
        }
        await sleep(retryAfterSec * 1000);
      }
    }
  }
}
