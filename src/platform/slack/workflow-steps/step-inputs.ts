import { z } from 'zod';
import { DELETION_CUSTOMER_LIMIT } from '../../mint/schemas.js';

/*
 * A custom step's inputs as Slack's function_executed event carries them: strings, integers, booleans,
 * timestamps (Unix seconds), user ids and arrays, each possibly absent, null or empty when the workflow
 * builder left an optional input unset. Each step reads its inputs with one zod object built from these,
 * then checks the request it makes with the same schema as the modal (src/platform/mint/schemas.ts).
 */

const blank = (value: unknown) =>
  value === null || value === '' || (Array.isArray(value) && value.length === 0) ? undefined : value;

/** Numbers may arrive as numeric text from variables of other steps. */
const numeric = (value: unknown) => {
  const given = blank(value);
  return typeof given === 'string' && /^-?\d+(\.\d+)?$/.test(given.trim()) ? Number(given) : given;
};

export const stepText = z.preprocess(blank, z.string('must be text').optional());

export const stepInteger = z.preprocess(
  numeric,
  z.number('must be a whole number').int('must be a whole number').optional(),
);

export const stepBoolean = z.preprocess(blank, z.boolean('must be true or false').optional());

/** A Unix time in seconds, as the ISO 8601 text the Mint service takes. */
export const stepTimestamp = z.preprocess(
  numeric,
  z
    .number('must be a date and time')
    .positive('must be a date and time')
    .max(253_402_300_799, 'must be a date and time before the year 10000')
    .transform((seconds) => new Date(Math.round(seconds * 1000)).toISOString())
    .optional(),
);

const SLACK_USER = /^[UW][A-Z0-9]{2,20}$/;

/**
 * The person a step acts for, as Slack's `slack#/types/user_context`: `{ id, secret }`, set by Slack from who
 * ran the workflow (a builder cannot type it in, so a workflow cannot ask in someone else's name). Read as
 * the user id; the secret is Slack's own check and is not kept. `why` completes "is required: …".
 */
export const stepUserContext = (why: string) =>
  z.preprocess(
    blank,
    z
      .object(
        {
          id: z
            .string('must be the person who runs the workflow')
            .regex(SLACK_USER, 'must be the person who runs the workflow'),
        },
        {
          error: (issue) =>
            issue.input === undefined ? `is required: ${why}` : 'must be the person who runs the workflow',
        },
      )
      .transform((context) => context.id),
  );

/** No step takes a longer list than a deletion's customers: a longer one is refused before it is read further. */
const MOST_LIST_ITEMS = DELETION_CUSTOMER_LIMIT.max;

/** A list of texts; a single text (a variable holding one value) counts as a list of one. */
export const stepTextList = z.preprocess(
  (value) => {
    const given = blank(value);
    return typeof given === 'string' ? [given] : given;
  },
  z
    .array(z.string('must be a list of texts'), 'must be a list of texts')
    .max(MOST_LIST_ITEMS, {
      error: (issue) =>
        `must be a list of at most ${MOST_LIST_ITEMS} items; it has ${Array.isArray(issue.input) ? issue.input.length : 'more'}`,
    })
    .optional(),
);

/** How the step's builder sees an input: its title in Workflow Builder and its name in the manifest. */
export type InputTitles = Record<string, string>;

export type StepInputCheck<T> = { ok: true; value: T } | { ok: false; error: string };

/** Reads the inputs; on failure, one sentence naming every wrong input the way Workflow Builder shows it. */
export function readStepInputs<S extends z.ZodType>(
  schema: S,
  inputs: Record<string, unknown>,
  titles: InputTitles,
): StepInputCheck<z.output<S>> {
  const parsed = schema.safeParse(inputs);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, error: inputProblemsText(parsed.error, (path) => String(path[0] ?? ''), titles) };
}

/**
 * The problems a request schema found, said in terms of the step's inputs: `inputOf` maps a request field
 * (e.g. `customerId`) to the input that filled it (`customer_ids`).
 */
export function requestProblemsText(error: z.ZodError, inputOf: Record<string, string>, titles: InputTitles): string {
  return inputProblemsText(error, (path) => inputOf[String(path[0] ?? '')] ?? String(path[0] ?? ''), titles);
}

function inputProblemsText(
  error: z.ZodError,
  inputName: (path: readonly PropertyKey[]) => string,
  titles: InputTitles,
): string {
  const problems = new Map<string, string>();
  for (const issue of error.issues) {
    const name = inputName(issue.path);
    if (problems.has(name)) continue;
    const message = issue.code === 'unrecognized_keys' ? 'is not an input of this step' : issue.message;
    problems.set(name, `${describeInput(name, titles)} ${message}`);
  }
  return `Check the step's inputs: ${[...problems.values()].join('; ')}.`;
}

export function describeInput(name: string, titles: InputTitles): string {
  const title = titles[name];
  return title ? `“${title}” (${name})` : name ? `“${name}”` : 'the inputs';
}
