import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLinkRequestSchema } from '../../../../src/platform/mint/schemas.js';
import {
  readStepInputs,
  requestProblemsText,
  stepUserContext,
  stepBoolean,
  stepInteger,
  stepText,
  stepTextList,
  stepTimestamp,
} from '../../../../src/platform/slack/workflow-steps/step-inputs.js';

const titles = { name: 'Name', count: 'Count', when: 'When', on: 'On', ids: 'IDs', who: 'Who' };
const schema = z.object({
  name: stepText,
  count: stepInteger,
  when: stepTimestamp,
  on: stepBoolean,
  ids: stepTextList,
  who: stepUserContext('the person'),
});

describe("a step's inputs as Slack sends them", () => {
  it('reads each type, with absent, null and empty values as unset', () => {
    expect(
      readStepInputs(
        schema,
        { name: 'n', count: 3, when: 1_700_000_000, on: false, ids: ['a', 'b'], who: { id: 'U1234', secret: 's' } },
        titles,
      ),
    ).toEqual({
      ok: true,
      value: {
        name: 'n',
        count: 3,
        when: '2023-11-14T22:13:20.000Z',
        on: false,
        ids: ['a', 'b'],
        who: 'U1234',
      },
    });
    expect(
      readStepInputs(schema, { name: '', count: null, ids: [], who: { id: 'W0001', secret: 's' } }, titles),
    ).toEqual({
      ok: true,
      value: { name: undefined, count: undefined, when: undefined, on: undefined, ids: undefined, who: 'W0001' },
    });
  });

  it("takes numbers written as text (another step's variable) and one text as a list of one", () => {
    const read = readStepInputs(
      schema,
      { count: '12', when: '1700000000', ids: 'solo', who: { id: 'U1234', secret: 's' } },
      titles,
    );
    expect(read).toMatchObject({ ok: true, value: { count: 12, when: '2023-11-14T22:13:20.000Z', ids: ['solo'] } });
  });

  it('names every wrong input once, with its title and name', () => {
    const read = readStepInputs(schema, { count: 1.5, when: 'tomorrow', on: 'yes', ids: [1], who: 'U1234' }, titles);
    expect(read).toEqual({
      ok: false,
      error:
        "Check the step's inputs: “Count” (count) must be a whole number; “When” (when) must be a date and time; “On” (on) must be true or false; “IDs” (ids) must be a list of texts; “Who” (who) must be the person who runs the workflow.",
    });
    expect(readStepInputs(schema, {}, titles)).toEqual({
      ok: false,
      error: "Check the step's inputs: “Who” (who) is required: the person.",
    });
  });

  it("says a request schema's problems in terms of the inputs that filled the fields", () => {
    const parsed = createLinkRequestSchema.safeParse({ nftId: '', walletOptions: 'CUSTODIAL', email: 'x' });
    expect(parsed.success).toBe(false);
    if (parsed.success) return;
    expect(
      requestProblemsText(parsed.error, { nftId: 'nft_id', email: 'email' }, { nft_id: 'NFT ID', email: 'Email' }),
    ).toBe("Check the step's inputs: “Email” (email) must be an email address; “NFT ID” (nft_id) is required.");
  });
});
