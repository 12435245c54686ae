import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { customerIdProblems, splitCustomerIds, withoutRepeats } from '../../../src/platform/mint/customer-ids.js';
import { customerIdSchema, deleteCustomersRequestSchema } from '../../../src/platform/mint/schemas.js';

describe('customer IDs typed in one box', () => {
  it('splits on commas, semicolons, spaces and new lines', () => {
    expect(splitCustomerIds(' a,b ;c\n\nd\te,, ')).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(splitCustomerIds('   ')).toEqual([]);
  });

  it('counts against a limit, without repeats when repeats are allowed', () => {
    const limit = { max: 2, per: 'a test', advice: 'Use fewer.' };
    expect(customerIdProblems(['a', 'b'], { limit })).toBeUndefined();
    expect(customerIdProblems(['a', 'b', 'c'], { limit })).toBe(
      'That is 3 customer IDs; a test takes at most 2. Use fewer.',
    );
    expect(customerIdProblems(['a', 'b', 'a'], { repeats: 'allowed', limit })).toBeUndefined();
    // What is wrong with the IDs themselves is said first.
    expect(customerIdProblems(['a', 'b', '!c'], { limit })).toContain('"!c" is not a customer ID');
  });

  it('names malformed and repeated IDs in one sentence', () => {
    expect(customerIdProblems(['a', 'b'])).toBeUndefined();
    expect(customerIdProblems(['a', '!x', 'a', '!x'])).toBe(
      '"!x" is not a customer ID (use letters, digits and . _ : @ + -); "a", "!x" are listed twice.',
    );
    expect(customerIdProblems(['y'.repeat(129)])).toContain(`"${'y'.repeat(39)}…" is not a customer ID`);
  });
});

/** What people paste into an IDs box: real-looking IDs, separators of every kind, and anything else. */
const idsText = fc.oneof(
  fc.string({ maxLength: 500, unit: 'binary' }),
  fc
    .array(
      fc.oneof(
        fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:@+-]{0,30}$/),
        fc.constantFrom('-x', 'b@d!', 'a"b', '<!channel>', 'y'.repeat(129), 'é', '\u0000'),
        fc.constantFrom(',', ';', ' ', '\n', '\t', ',,', ' ; '),
      ),
      { maxLength: 60 },
    )
    .map((parts) => parts.join('')),
);

describe('customer IDs, property-based', () => {
  it('splits any text into non-empty words without separators, and never throws', () => {
    fc.assert(
      fc.property(idsText, (text) => {
        const ids = splitCustomerIds(text);
        expect(ids.every((id) => id.length > 0 && !/[\s,;]/.test(id))).toBe(true);
        expect(ids.join('')).toBe(text.replace(/[\s,;]+/g, ''));
      }),
      { numRuns: 300 },
    );
  });

  it('accepts a list only when every ID matches the schema, and names a problem otherwise', () => {
    fc.assert(
      fc.property(idsText, (text) => {
        const ids = splitCustomerIds(text);
        const allowed = customerIdProblems(ids, { repeats: 'allowed' });
        if (allowed === undefined) {
          expect(ids.every((id) => customerIdSchema.safeParse(id).success)).toBe(true);
          expect(deleteCustomersRequestSchema.safeParse(withoutRepeats(ids).ids).success).toBe(true);
        } else {
          expect(ids.some((id) => !customerIdSchema.safeParse(id).success)).toBe(true);
          expect(allowed.length).toBeLessThan(600);
        }
        const refused = customerIdProblems(ids);
        if (refused === undefined) expect(deleteCustomersRequestSchema.safeParse(ids).success).toBe(true);
        else expect(deleteCustomersRequestSchema.safeParse(ids).success).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});
