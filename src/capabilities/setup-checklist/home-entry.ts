import type { HomeEntry } from '../../deps.js';
import type { ChecklistContext } from './checklist-context.js';
import { checklistBlocks } from './checklist-view.js';

/**
 * The checklist at the top of App Home, for settings admins only, while some check fails: the report at hand,
 * never a check during a Home publish (a missing or old report is checked in the background).
 */
export function checklistHomeEntry(ctx: ChecklistContext): HomeEntry {
  return {
    order: 0,
    top: true,
    blocks: async (userId, teamId) => {
      if (!(await ctx.isAdmin(userId, teamId))) return [];
      const report = ctx.reports.peek(teamId, ctx.settingsBasis(teamId));
      return report ? checklistBlocks(report, { checking: ctx.reports.checking(teamId), now: Date.now() }) : [];
    },
  };
}
