import type { KnownBlock } from '@slack/types';
import type { SetupItem } from '../setup-checks/setup-items.js';
import { actionsRow, button, context, divider, section } from '../slack-ui/blocks.js';
import { slackDate } from '../slack-ui/slack-date.js';

export const SETUP_RECHECK_ACTION = 'home_setup_recheck';

const MARKS: Record<SetupItem['state'], string> = {
  pass: ':heavy_check_mark:',
  fail: ':heavy_multiplication_x:',
  warn: ':warning:',
};

/**
 * The Setup checklist at the top of a settings admin's App Home while some item fails: every item with its
 * mark, what to do under each that does not pass, and a button to check again. Nothing once all pass.
 */
export function checklistBlocks(items: readonly SetupItem[], checkedAt: Date): KnownBlock[] {
  const failing = items.filter((item) => item.state === 'fail').length;
  if (failing === 0) return [];
  return [
    section(
      `*Setup checklist* · ${failing} of ${items.length} checks ${failing === 1 ? 'fails' : 'fail'}\nMintlink is not fully set up in this workspace: do what each item marked :heavy_multiplication_x: says, then check again.`,
    ),
    ...items.map((item) =>
      section(`${MARKS[item.state]} ${item.summary}${item.fix && item.state !== 'pass' ? `\n→ ${item.fix}` : ''}`),
    ),
    actionsRow('setup_checklist', button(SETUP_RECHECK_ACTION, 'Check again', 'primary')),
    context(
      `Checked ${slackDate(checkedAt)}. Only settings admins see this list; it goes away once every check passes.`,
    ),
    divider(),
  ];
}
