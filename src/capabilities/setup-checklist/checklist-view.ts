import type { KnownBlock } from '@slack/types';
import { SETUP_CHECKLIST } from './actions.js';
import { buttonOf } from '../../platform/slack/pipeline/declarations.js';
import type { SetupItem } from '../../tenancy/setup-checks/setup-items.js';
import { actionsRow, context, divider, section } from '../../platform/blocks/blocks.js';
import { slackDate } from '../../platform/blocks/slack-date.js';

const MARKS: Record<SetupItem['state'], string> = {
  pass: ':heavy_check_mark:',
  fail: ':heavy_multiplication_x:',
  warn: ':warning:',
};

/** How long "Setup complete" stays on the Home of the admins after a check someone asked for passes. */
export const COMPLETE_SHOWN_MS = 10 * 60_000;

/**
 * The Setup checklist at the top of a settings admin's App Home while some item fails: every item with its
 * mark, what to do under each that does not pass, and a button to check again ("checking…" while a check
 * runs). Once all pass after a person asked, one line says so for COMPLETE_SHOWN_MS; then nothing.
 */
export function checklistBlocks(
  report: { items: readonly SetupItem[]; at: number; asked?: boolean },
  { checking, now }: { checking: boolean; now: number },
): KnownBlock[] {
  const { items } = report;
  const checkedAt = new Date(report.at);
  const failing = items.filter((item) => item.state === 'fail').length;
  if (failing === 0)
    return report.asked && now - report.at < COMPLETE_SHOWN_MS
      ? [
          section(
            `:heavy_check_mark: *Setup complete*: every check passes (checked ${slackDate(checkedAt)}${checking ? ', checking again…' : ''}).`,
          ),
          divider(),
        ]
      : [];
  return [
    section(
      `*Setup checklist* · ${failing} of ${items.length} checks ${failing === 1 ? 'fails' : 'fail'}${checking ? ' · _checking…_' : ''}\nMintlink is not fully set up in this workspace: do what each item marked :heavy_multiplication_x: says, then check again.`,
    ),
    ...items.map((item) =>
      section(`${MARKS[item.state]} ${item.summary}${item.fix && item.state !== 'pass' ? `\n→ ${item.fix}` : ''}`),
    ),
    actionsRow('setup_checklist', buttonOf(SETUP_CHECKLIST.buttons.checkAgain)),
    context(
      `Checked ${slackDate(checkedAt)}. Only settings admins see this list; it goes away once every check passes.`,
    ),
    divider(),
  ];
}
