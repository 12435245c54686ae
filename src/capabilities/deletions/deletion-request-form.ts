import type { ViewOutput } from '@slack/bolt';
import { DELETIONS } from './actions.js';
import { buttonOf } from '../../platform/slack/pipeline/declarations.js';
import type { ActionsBlock, KnownBlock, ModalView } from '@slack/types';
import { context, problemBanner } from '../../platform/blocks/blocks.js';
import { textInput } from '../../platform/blocks/inputs.js';
import { modal } from '../../platform/blocks/modal.js';
import { textValue } from '../../platform/blocks/view-state.js';
import { fieldOf } from '../../platform/unknown-fields.js';
import { customerIdProblems, splitCustomerIds } from '../../platform/mint/customer-ids.js';
import { checkDeletionInput } from './deletion-input.js';
import { sourceChannelOf } from './message-source.js';
import { DELETION_CUSTOMER_LIMIT } from '../../platform/mint/schemas.js';
import { MAX_REASON_LENGTH } from './deletion-context.js';
import { customerCount } from './messages.js';
import type { DeletionQuorum } from '../../platform/ops/config/config.js';

export const REASON_BLOCK = 'reason';
/** Slack caps a text box at 3000 characters; long lists go into more boxes. */
export const MAX_ID_BOXES = 10;
export const BOX_CHARS = 3000;

export const idsBlock = (box: number) => `customer_ids_${box}`;

export interface DeletionFormValues {
  /** The text of each IDs box, as typed. */
  boxes: string[];
  reason?: string | undefined;
}

/**
 * "Request deletion": IDs (in one or more boxes) and a reason; `prefill` fills the boxes; `source` is the
 * signed message it was asked from (message-source.ts), kept with the form until it is submitted; `quorum`, the
 * workspace's in force, which the form states.
 */
export function deletionRequestView(
  options: {
    boxes?: number;
    prefill?: readonly string[];
    reason?: string;
    problem?: string;
    source?: string;
    quorum?: DeletionQuorum | undefined;
  } = {},
): ModalView {
  const given = options.prefill ?? [];
  // A message (or command) naming more customers than one request takes fills the form up to the limit.
  const { boxes: prefilled, placed } = fillBoxes(given.slice(0, DELETION_CUSTOMER_LIMIT.max));
  const boxes = Math.min(MAX_ID_BOXES, Math.max(1, options.boxes ?? 1, prefilled.length));
  const left = given.length - placed;
  const why =
    placed === DELETION_CUSTOMER_LIMIT.max
      ? `${DELETION_CUSTOMER_LIMIT.per} takes at most ${DELETION_CUSTOMER_LIMIT.max}`
      : `Slack limits each box to ${BOX_CHARS} characters`;
  const problem =
    options.problem ??
    (left > 0
      ? `Only the first ${placed} of the ${given.length} IDs given fit in this form (${why}). Request the other ${left} separately.`
      : undefined);
  const blocks: KnownBlock[] = [...(problem ? [problemBanner(problem)] : [])];
  const sourceChannel = sourceChannelOf(options.source);
  if (sourceChannel)
    blocks.push(context(`Asked from a message in <#${sourceChannel}>: the approvers get a link to it.`));
  for (let box = 1; box <= boxes; box += 1) {
    blocks.push(
      textInput({
        blockId: idsBlock(box),
        label: box === 1 ? 'Customer IDs' : `Customer IDs (continued, box ${box})`,
        optional: box > 1,
        multiline: true,
        hint:
          box === 1
            ? `Separated by commas, spaces or new lines; repeats are dropped. Up to ${DELETION_CUSTOMER_LIMIT.max} customers per request.`
            : 'More IDs, the same way.',
        initial: prefilled[box - 1],
        maxLength: BOX_CHARS,
      }),
    );
  }
  if (boxes < MAX_ID_BOXES) {
    const add: ActionsBlock = {
      type: 'actions',
      block_id: 'add_ids_box',
      elements: [buttonOf(DELETIONS.buttons.addIdsBox)],
    };
    blocks.push(add);
  }
  blocks.push(
    textInput({
      blockId: REASON_BLOCK,
      label: 'Reason',
      multiline: true,
      hint: 'Why these customers must be deleted: the approvers read it.',
      initial: options.reason,
      maxLength: MAX_REASON_LENGTH,
    }),
    context(approvalRule(options.quorum)),
  );
  return modal({
    callbackId: DELETIONS.forms.request.callbackId,
    title: 'Request deletion',
    submit: 'Request',
    close: 'Cancel',
    blocks,
    privateMetadata: JSON.stringify({ boxes, ...(options.source ? { source: options.source } : {}) }),
  });
}

/**
 * How many ID boxes the form has, from its metadata. The metadata comes back from the client, so a forged
 * count is clamped to 1..MAX_ID_BOXES: it only decides how many boxes are read, and each is checked.
 */
export function boxesOf(privateMetadata: string | undefined): number {
  try {
    const boxes = fieldOf(JSON.parse(privateMetadata ?? '{}'), 'boxes');
    return typeof boxes === 'number' && Number.isInteger(boxes) ? Math.min(MAX_ID_BOXES, Math.max(1, boxes)) : 1;
  } catch {
    return 1;
  }
}

/** The signed message source kept in the form's metadata, as it is (checked where it is used). */
export function signedSourceOf(privateMetadata: string | undefined): string | undefined {
  try {
    const source = fieldOf(JSON.parse(privateMetadata ?? '{}'), 'source');
    return typeof source === 'string' && source.length <= 200 ? source : undefined;
  } catch {
    return undefined;
  }
}

export function readDeletionForm(values: ViewOutput['state']['values'], boxes: number): DeletionFormValues {
  return {
    boxes: Array.from({ length: boxes }, (_, i) => textValue(values, idsBlock(i + 1)) ?? ''),
    reason: textValue(values, REASON_BLOCK),
  };
}

export type DeletionFormCheck =
  | { ok: true; customerIds: string[]; duplicatesRemoved: number; reason: string }
  | { ok: false; errors: Record<string, string> };

/**
 * Checks a submitted form. The values come from the client, so every limit the form sets (the number of
 * boxes, each box's and the reason's length) is checked here too: a forged submission gets the same
 * inline errors as a wrong entry, and nothing is stored.
 */
export function checkDeletionForm(values: DeletionFormValues): DeletionFormCheck {
  const errors: Record<string, string> = {};
  if (values.boxes.length > MAX_ID_BOXES) {
    return {
      ok: false,
      errors: { [idsBlock(1)]: `The form has at most ${MAX_ID_BOXES} boxes of IDs. Open it again.` },
    };
  }
  const perBox = values.boxes.map((text) => splitCustomerIds(text));
  perBox.forEach((ids, i) => {
    const problem = customerIdProblems(ids, { repeats: 'allowed' });
    if (problem) errors[idsBlock(i + 1)] = problem;
  });
  const checked = checkDeletionInput(perBox.flat(), values.reason);
  if (!checked.ok && checked.problems.customerIds && Object.keys(errors).length === 0)
    errors[idsBlock(1)] = checked.problems.customerIds;
  values.boxes.forEach((text, i) => {
    if (text.length > BOX_CHARS && !errors[idsBlock(i + 1)])
      errors[idsBlock(i + 1)] =
        `This box holds ${text.length} characters; a box takes at most ${BOX_CHARS}. Put the rest in another box.`;
  });
  if (!checked.ok && checked.problems.reason) errors[REASON_BLOCK] = checked.problems.reason;
  if (Object.keys(errors).length > 0 || !checked.ok) return { ok: false, errors };
  return {
    ok: true,
    customerIds: checked.customerIds,
    duplicatesRemoved: checked.duplicatesRemoved,
    reason: checked.reason,
  };
}

/** IDs spread over boxes of at most 3000 characters, one per line, never split; says how many fit. */
function fillBoxes(ids: readonly string[]): { boxes: string[]; placed: number } {
  const boxes: string[] = [];
  let current = '';
  let placed = 0;
  for (const id of ids) {
    if (id.length > BOX_CHARS) break;
    const next = current ? `${current}\n${id}` : id;
    if (next.length <= BOX_CHARS) {
      current = next;
    } else {
      if (boxes.length + 1 >= MAX_ID_BOXES) break;
      boxes.push(current);
      current = id;
    }
    placed += 1;
  }
  if (current) boxes.push(current);
  return { boxes, placed };
}

/**
 * The policy in force, as the request form states it: "Nothing is deleted until 2 approvers other than you
 * approve the request (3 from 100 customers up)."; without the settings at hand, what holds under any quorum.
 */
function approvalRule(quorum: DeletionQuorum | undefined): string {
  if (!quorum) return 'Nothing is deleted until enough approvers other than you approve the request.';
  const who = (n: number) =>
    n === 1 ? 'an approver other than you approves' : `${n} approvers other than you approve`;
  const large = quorum.large ? ` (${quorum.large.approvals} from ${customerCount(quorum.large.fromCustomers)} up)` : '';
  return `Nothing is deleted until ${who(quorum.approvals)} the request${large}.`;
}
