import { randomUUID } from 'node:crypto';

/**
 * The workspaces the distribution benchmark installs the app in: ids shaped like Slack's, one installer each,
 * and the bot token Slack would have issued to each (random, so no two runs share one).
 */
export interface BenchWorkspace {
  teamId: string;
  teamName: string;
  /** Who installed the app, and who sends the workspace's commands. */
  userId: string;
  botToken: string;
  botUserId: string;
  botId: string;
}

export function benchWorkspaces(count: number): BenchWorkspace[] {
  return Array.from({ length: count }, (_, i) => {
    const n = String(i + 1).padStart(6, '0');
    const teamId = `TBN${n}`;
    return {
      teamId,
      teamName: `Bench workspace ${i + 1}`,
      userId: `UBN${n}`,
      botToken: `xoxb-${teamId}-${randomUUID().replace(/-/g, '')}`,
      botUserId: `UBB${n}`,
      botId: `BBN${n}`,
    };
  });
}
