import { z } from 'zod';
import { TEMPLATE_ORDERS, contractIdSchema, listTemplatesRequestSchema } from '../../platform/mint/schemas.js';
import { LIMITS } from '../../platform/blocks/limits.js';

/** Which page a message shows. It travels in the buttons, so any replica can serve any click. */
export interface PageState {
  contractId: string;
  offset: number;
  limit: number;
  order: (typeof TEMPLATE_ORDERS)[number];
}

export const DEFAULT_LIMIT = 10;
export const DEFAULT_ORDER: PageState['order'] = 'desc';

/**
 * Compact JSON for a button value: contract ids are at most 200 characters, so even one whose every
 * character JSON must escape (6 characters each at worst) stays far below Slack's 2000.
 */
export function encodePageState(state: PageState): string {
  return JSON.stringify({ c: state.contractId, o: state.offset, l: state.limit, d: state.order });
}

const encodedSchema = z.object({ c: contractIdSchema, o: z.number(), l: z.number(), d: z.enum(TEMPLATE_ORDERS) });

/** Reads a button value back; undefined when it is not one of ours (it comes from a client, so check it). */
export function decodePageState(value: string | undefined): PageState | undefined {
  if (!value || value.length > LIMITS.buttonValue) return undefined;
  try {
    const raw = encodedSchema.parse(JSON.parse(value));
    const checked = listTemplatesRequestSchema.parse({
      contractId: raw.c,
      offset: raw.o,
      limit: raw.l,
      orderBy: raw.d,
    });
    return {
      contractId: checked.contractId,
      offset: checked.offset ?? 0,
      limit: checked.limit ?? DEFAULT_LIMIT,
      order: checked.orderBy ?? DEFAULT_ORDER,
    };
  } catch {
    return undefined;
  }
}
