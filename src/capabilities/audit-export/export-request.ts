/** What to export: the last `days` days, optionally one operation (or family) and one person's actions. */
export interface ExportRequest {
  days: number;
  operation: string | undefined;
  userId: string | undefined;
}

export const DEFAULT_DAYS = 30;
export const MAX_DAYS = 3650;

/** An operation name, or the start of one up to a dot (`customers.delete` takes all its steps). */
const OPERATION = /^[a-z][a-z0-9_-]*(\.[a-z0-9_-]+)*$/;
/** A mention as Slack writes it (`<@U123>` or `<@U123|name>`), or a member id typed as it is. */
const USER = /^(?:<@([UW][A-Z0-9]{2,})(?:\|[^>]*)?>|([UW][A-Z0-9]{2,}))$/;

/** `problem` is plain text (it may quote what was typed): escape it for mrkdwn. */
export type ParsedRequest = { ok: true; request: ExportRequest } | { ok: false; problem: string };

/** Checks a number of days as typed in the command or the form. */
export function daysProblem(text: string): string | undefined {
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > MAX_DAYS)
    return `The number of days must be a whole number from 1 to ${MAX_DAYS}; "${text.slice(0, 20)}" is not.`;
  return undefined;
}

export function operationProblem(text: string): string | undefined {
  if (text.length > 100 || !OPERATION.test(text))
    return `"${text.slice(0, 40)}" is not an operation name: use names such as link.create, wallet.create or customers.delete (which takes all its steps).`;
  return undefined;
}

/**
 * `/mintlink audit [days] [operation] [@user]`, in any order: a number is the days, a mention or a member id
 * the person, a dotted lower-case name the operation. The command arrives unescaped (manifest.yml:
 * should_escape false), so a name typed as `@ana` cannot be told apart from text: the answer asks for the
 * member id, or points to the Home form, which has a person picker.
 */
export function parseExportArgs(args: readonly string[]): ParsedRequest {
  let days: number | undefined;
  let operation: string | undefined;
  let userId: string | undefined;
  for (const arg of args) {
    const user = USER.exec(arg);
    if (user) {
      if (userId) return { ok: false, problem: 'Give at most one person.' };
      userId = user[1] ?? user[2];
    } else if (/^\d+$/.test(arg)) {
      if (days !== undefined) return { ok: false, problem: 'Give the number of days once.' };
      const problem = daysProblem(arg);
      if (problem) return { ok: false, problem };
      days = Number(arg);
    } else if (arg.startsWith('@')) {
      return {
        ok: false,
        problem: `"${arg.slice(0, 40)}" cannot be read as a person here: give their member ID (their profile -> ⋮ -> Copy member ID, e.g. U0123ABCD), or use *Export audit log* on the app's Home, where you can pick them.`,
      };
    } else {
      if (operation !== undefined) return { ok: false, problem: 'Give at most one operation.' };
      const problem = operationProblem(arg);
      if (problem) return { ok: false, problem };
      operation = arg;
    }
  }
  return { ok: true, request: { days: days ?? DEFAULT_DAYS, operation, userId } };
}

/** "the last 30 days, operation customers.delete, actions of <@U1>". */
export function describeRequest(r: ExportRequest): string {
  return [
    `the last ${r.days} day${r.days === 1 ? '' : 's'}`,
    ...(r.operation ? [`operation \`${r.operation}\``] : []),
    ...(r.userId ? [`actions of <@${r.userId}>`] : []),
  ].join(', ');
}
