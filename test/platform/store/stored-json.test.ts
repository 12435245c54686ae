import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseJson } from '../../../src/platform/store/stored-json.js';

describe('a JSON column read back through its schema', () => {
  const schema = z.object({ users: z.array(z.string()), userGroups: z.array(z.string()) });

  it('gives the value when it has the shape', () => {
    expect(parseJson('{"users":["U1"],"userGroups":[]}', schema)).toEqual({ users: ['U1'], userGroups: [] });
  });

  it('gives nothing for text that is not JSON, or JSON of another shape, instead of a wrongly typed value', () => {
    expect(parseJson('{"users":', schema)).toBeUndefined();
    expect(parseJson('{"users":"U1","userGroups":[]}', schema)).toBeUndefined();
    expect(parseJson('null', schema)).toBeUndefined();
  });
});
