import { TEMPLATE_LIMIT, contractIdSchema } from '../mint-api/schemas.js';
import { inlineCode } from '../slack-ui/mrkdwn.js';
import { DEFAULT_LIMIT, DEFAULT_ORDER, type PageState } from './page-state.js';

export const TEMPLATES_USAGE = '<contractId> [limit] [asc|desc]';

export type TemplatesArgs = { ok: true; state: PageState } | { ok: false; problem: string };

/** `<contractId> [limit] [asc|desc]`: the limit and the order may come in either order, each once. */
export function parseTemplatesArgs(args: readonly string[], commandName: string): TemplatesArgs {
  const usage = `Usage: \`${commandName} templates ${TEMPLATES_USAGE}\` (limit ${TEMPLATE_LIMIT.min}–${TEMPLATE_LIMIT.max}, default ${DEFAULT_LIMIT}; order default ${DEFAULT_ORDER}).`;
  const [contractId, ...options] = args;
  if (!contractId) return { ok: false, problem: `Which contract? Give its ID. ${usage}` };
  const contract = contractIdSchema.safeParse(contractId);
  if (!contract.success)
    return {
      ok: false,
      problem: `${inlineCode(contractId.slice(0, 60))} is not a contract ID: it ${contract.error.issues[0]?.message}. ${usage}`,
    };

  let limit: number | undefined;
  let order: PageState['order'] | undefined;
  for (const [i, word] of options.entries()) {
    const lower = word.toLowerCase();
    const isOrder = lower === 'asc' || lower === 'desc';
    const isNumber = /^[-+]?\d/.test(word);
    // At most one limit and one order: anything beyond is an extra word.
    if (i >= 2 || (isOrder && order !== undefined) || (isNumber && limit !== undefined)) {
      return { ok: false, problem: `Too many words: ${inlineCode(options.slice(i).join(' ').slice(0, 60))}. ${usage}` };
    }
    if (isOrder) {
      order = lower;
    } else if (isNumber) {
      const n = Number(word);
      if (!Number.isInteger(n) || n < TEMPLATE_LIMIT.min || n > TEMPLATE_LIMIT.max) {
        return {
          ok: false,
          problem: `The limit must be a whole number from ${TEMPLATE_LIMIT.min} to ${TEMPLATE_LIMIT.max}, not ${inlineCode(word)}. ${usage}`,
        };
      }
      limit = n;
    } else {
      return {
        ok: false,
        problem: `${inlineCode(word.slice(0, 60))} is neither a limit (${TEMPLATE_LIMIT.min}–${TEMPLATE_LIMIT.max}) nor an order (\`asc\` or \`desc\`). ${usage}`,
      };
    }
  }
  return {
    ok: true,
    state: { contractId: contract.data, offset: 0, limit: limit ?? DEFAULT_LIMIT, order: order ?? DEFAULT_ORDER },
  };
}
