import type { ViewOutput } from '@slack/bolt';
import { AUDIT_EXPORT } from './actions.js';
import type { InputBlock, ModalView } from '@slack/types';
import { context } from '../../platform/blocks/blocks.js';
import { INPUT_ACTION_ID, textInput, wholeNumberInput } from '../../platform/blocks/inputs.js';
import { modal } from '../../platform/blocks/modal.js';
import { textValue } from '../../platform/blocks/view-state.js';
import { DEFAULT_DAYS, type ExportRequest, MAX_DAYS, daysProblem, operationProblem } from './export-request.js';

export const EXPORT_BLOCKS = { days: 'audit_days', operation: 'audit_operation', user: 'audit_user' } as const;

/** "Export audit log" (App Home): the period in days, and optionally an operation and a person. */
export function exportFormView(): ModalView {
  const user: InputBlock = {
    type: 'input',
    block_id: EXPORT_BLOCKS.user,
    optional: true,
    label: { type: 'plain_text', text: 'Only the actions of' },
    hint: { type: 'plain_text', text: 'Leave empty for everyone.' },
    element: { type: 'users_select', action_id: INPUT_ACTION_ID, placeholder: { type: 'plain_text', text: 'Anyone' } },
  };
  return modal({
    callbackId: AUDIT_EXPORT.forms.export.callbackId,
    title: 'Export audit log',
    submit: 'Export',
    close: 'Cancel',
    blocks: [
      wholeNumberInput({
        blockId: EXPORT_BLOCKS.days,
        label: 'The last how many days',
        initial: String(DEFAULT_DAYS),
        min: 1,
        hint: `1 to ${MAX_DAYS}.`,
      }),
      textInput({
        blockId: EXPORT_BLOCKS.operation,
        label: 'Only the operation',
        optional: true,
        maxLength: 100,
        placeholder: 'customers.delete',
        hint: 'Leave empty for all. A name such as link.create or wallet.create; customers.delete takes all its steps.',
      }),
      user,
      context(
        'The CSV arrives in your direct messages with the app: who, when, operation, inputs, outcome, approvers.',
      ),
    ],
  });
}

export type ExportFormCheck = { ok: true; request: ExportRequest } | { ok: false; errors: Record<string, string> };

/** Checks a submitted form (its values come from the client, so every limit is checked here too). */
export function readExportForm(values: ViewOutput['state']['values']): ExportFormCheck {
  const errors: Record<string, string> = {};
  const days = textValue(values, EXPORT_BLOCKS.days) ?? '';
  const daysWrong = days ? daysProblem(days) : `Give a number of days, 1 to ${MAX_DAYS}.`;
  if (daysWrong) errors[EXPORT_BLOCKS.days] = daysWrong;
  const operation = textValue(values, EXPORT_BLOCKS.operation)?.toLowerCase();
  const operationWrong = operation ? operationProblem(operation) : undefined;
  if (operationWrong) errors[EXPORT_BLOCKS.operation] = operationWrong;
  const selected: unknown = values[EXPORT_BLOCKS.user]?.[INPUT_ACTION_ID]?.selected_user;
  const userId = typeof selected === 'string' && /^[UW][A-Z0-9]{2,}$/.test(selected) ? selected : undefined;
  if (selected !== undefined && selected !== null && !userId)
    errors[EXPORT_BLOCKS.user] = 'Pick a person from the list.';
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, request: { days: Number(days), operation, userId } };
}
