import { TEMPLATE_LIMIT, contractIdSchema } from '../../platform/mint/schemas.js';
import { cutText, escapeMrkdwn, inlineCode } from '../../platform/blocks/mrkdwn.js';
import { DEFAULT_LIMIT, DEFAULT_ORDER, type PageState } from './page-state.js';

export const TEMPLATES_USAGE = '<contractId> [limit] [asc|desc]';

export type TemplatesArgs = { ok: true; state: PageState } | { ok: false; problem: string };

/** A limit is written in plain decimal digits: no sign, exponent, hex, fraction or spaces. */
const LIMIT_DIGITS = /^[0-9]+$/;

/** A word of the user's shown back in a problem (escaped, cut, in code). */
const shown = (word: string) => inlineCode(cutText(word, 60));

/**
 * `<contractId> [limit] [asc|desc]`: the limit and the order may come in either order, each once. A problem
 * comes back as mrkdwn in which everything the user typed is escaped.
 */
export function parseTemplatesArgs(args: readonly string[], commandName: string): TemplatesArgs {
  const usage = `Usage: ${inlineCode(`${commandName} templates ${TEMPLATES_USAGE}`)} (limit ${TEMPLATE_LIMIT.min}–${TEMPLATE_LIMIT.max}, default ${DEFAULT_LIMIT}; order default ${DEFAULT_ORDER}).`;
  const [contractId, ...options] = args;
  if (!contractId) return { ok: false, problem: `Which contract? Give its ID. ${usage}` };
  const contract = contractIdSchema.safeParse(contractId);
  if (!contract.success)
    return {
      ok: false,
      problem: `${shown(contractId)} is not a contract ID: it ${escapeMrkdwn(contract.error.issues[0]?.message ?? 'is not valid')}. ${usage}`,
    };

  let limit: number | undefined;
  let order: PageState['order'] | undefined;
  for (const [i, word] of options.entries()) {
    const lower = word.toLowerCase();
    const isOrder = lower === 'asc' || lower === 'desc';
    // Anything that starts like a number is meant as the limit (and must then be plain digits).
    const isNumber = /^[-+.]?[0-9]/.test(word);
    // At most one limit and one order: anything beyond is an extra word.
    if (i >= 2 || (isOrder && order !== undefined) || (isNumber && limit !== undefined)) {
      return { ok: false, problem: `Too many words: ${shown(options.slice(i).join(' '))}. ${usage}` };
    }
    if (isOrder) {
      order = lower;
    } else if (isNumber) {
      const n = LIMIT_DIGITS.test(word) ? Number.parseInt(word, 10) : Number.NaN;
      if (!(n >= TEMPLATE_LIMIT.min && n <= TEMPLATE_LIMIT.max)) {
        return {
          ok: false,
          problem: `The limit must be a whole number from ${TEMPLATE_LIMIT.min} to ${TEMPLATE_LIMIT.max} in plain digits, not ${shown(word)}. ${usage}`,
        };
      }
      limit = n;
    } else {
      return {
        ok: false,
        problem: `${shown(word)} is neither a limit (${TEMPLATE_LIMIT.min}–${TEMPLATE_LIMIT.max}) nor an order (\`asc\` or \`desc\`). ${usage}`,
      };
    }
  }
  return {
    ok: true,
    state: { contractId: contract.data, offset: 0, limit: limit ?? DEFAULT_LIMIT, order: order ?? DEFAULT_ORDER },
  };
}
