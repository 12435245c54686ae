import { expect } from 'vitest';
import { listTemplatesRequestSchema } from '../../../src/platform/mint/schemas.js';
import type { PageState } from '../../../src/capabilities/templates/page-state.js';

/** The page a state asks for is a request the spec allows (the shared zod schema says so). */
export function expectWithinSpec(state: PageState): void {
  const request = { contractId: state.contractId, offset: state.offset, limit: state.limit, orderBy: state.order };
  expect(listTemplatesRequestSchema.safeParse(request).success).toBe(true);
}
