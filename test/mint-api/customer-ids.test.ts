import { describe, expect, it } from 'vitest';
import { customerIdProblems, splitCustomerIds } from '../../src/mint-api/customer-ids.js';

describe('customer IDs typed in one box', () => {
  it('splits on commas, semicolons, spaces and new lines', () => {
    expect(splitCustomerIds(' a,b ;c\n\nd\te,, ')).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(splitCustomerIds('   ')).toEqual([]);
  });

  it('names malformed and repeated IDs in one sentence', () => {
    expect(customerIdProblems(['a', 'b'])).toBeUndefined();
    expect(customerIdProblems(['a', '!x', 'a', '!x'])).toBe(
      '"!x" is not a customer ID (use letters, digits and . _ : @ + -); "a", "!x" are listed twice.',
    );
    expect(customerIdProblems(['y'.repeat(129)])).toContain(`"${'y'.repeat(39)}…" is not a customer ID`);
  });
});
