import type { InputBlock, PlainTextOption } from '@slack/types';
import { LIMITS, truncate } from './limits.js';

/*
 * Input blocks for modals. Every input uses the action_id `value`, so a field is found by its block id alone
 * (see view-state.ts). Labels, hints and placeholders are cut to Slack's limits.
 */
export const INPUT_ACTION_ID = 'value';

interface Common {
  blockId: string;
  label: string;
  hint?: string;
  optional?: boolean;
  placeholder?: string;
}

function input(common: Common, element: InputBlock['element']): InputBlock {
  return {
    type: 'input',
    block_id: common.blockId,
    label: { type: 'plain_text', text: truncate(common.label, LIMITS.inputLabel), emoji: true },
    ...(common.hint
      ? { hint: { type: 'plain_text', text: truncate(common.hint, LIMITS.inputHint), emoji: true } }
      : {}),
    optional: common.optional ?? false,
    element,
  };
}

const placeholder = (text: string | undefined) =>
  text ? { placeholder: { type: 'plain_text' as const, text: truncate(text, LIMITS.placeholder) } } : {};

export function textInput(common: Common & { initial?: string; multiline?: boolean; maxLength?: number }): InputBlock {
  const maxLength = Math.min(common.maxLength ?? 3000, 3000);
  return input(common, {
    type: 'plain_text_input',
    action_id: INPUT_ACTION_ID,
    multiline: common.multiline ?? false,
    max_length: maxLength,
    ...(common.initial ? { initial_value: truncate(common.initial, maxLength) } : {}),
    ...placeholder(common.placeholder),
  });
}

export function emailInput(common: Common & { initial?: string }): InputBlock {
  return input(common, {
    type: 'email_text_input',
    action_id: INPUT_ACTION_ID,
    ...(common.initial ? { initial_value: common.initial } : {}),
    ...placeholder(common.placeholder),
  });
}

/** Whole numbers only, from `min`. Slack sends the value back as a string. */
export function wholeNumberInput(common: Common & { initial?: string; min?: number }): InputBlock {
  return input(common, {
    type: 'number_input',
    action_id: INPUT_ACTION_ID,
    is_decimal_allowed: false,
    ...(common.min !== undefined ? { min_value: String(common.min) } : {}),
    ...(common.initial ? { initial_value: common.initial } : {}),
    ...placeholder(common.placeholder),
  });
}

/** Date and time in the user's own time zone; Slack sends UNIX seconds. */
export function dateTimeInput(common: Common & { initialUnixSeconds?: number }): InputBlock {
  return input(common, {
    type: 'datetimepicker',
    action_id: INPUT_ACTION_ID,
    ...(common.initialUnixSeconds !== undefined ? { initial_date_time: common.initialUnixSeconds } : {}),
  });
}

export interface Choice {
  label: string;
  value: string;
}

export function option(choice: Choice): PlainTextOption {
  return {
    text: { type: 'plain_text', text: truncate(choice.label, LIMITS.optionText), emoji: true },
    value: choice.value,
  };
}

export function selectInput(common: Common & { choices: readonly Choice[]; initial?: string }): InputBlock {
  const initial = common.choices.find((c) => c.value === common.initial);
  return input(common, {
    type: 'static_select',
    action_id: INPUT_ACTION_ID,
    options: common.choices.slice(0, 100).map((choice) => option(choice)),
    ...(initial ? { initial_option: option(initial) } : {}),
    ...placeholder(common.placeholder ?? 'Choose'),
  });
}

/** One checkbox; `checked` sets its initial state. */
export function checkboxInput(common: Common & { choice: Choice; checked: boolean }): InputBlock {
  return input(
    { ...common, optional: true },
    {
      type: 'checkboxes',
      action_id: INPUT_ACTION_ID,
      options: [option(common.choice)],
      ...(common.checked ? { initial_options: [option(common.choice)] } : {}),
    },
  );
}

/**
 * A file upload box (Slack's file_input, modals only). `filetypes` are extensions Slack's client accepts (a
 * convenience, not a check: the app checks what it receives).
 */
export function fileInput(common: Common & { maxFiles?: number; filetypes?: string[] }): InputBlock {
  return input(common, {
    type: 'file_input',
    action_id: INPUT_ACTION_ID,
    max_files: common.maxFiles ?? 1,
    ...(common.filetypes ? { filetypes: common.filetypes } : {}),
  });
}
