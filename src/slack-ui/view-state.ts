import type { ViewOutput } from '@slack/bolt';
import { INPUT_ACTION_ID } from './inputs.js';

type Values = ViewOutput['state']['values'];

/* Readers for a submitted view's state, by the block id of an input built with inputs.ts. */

function field(values: Values, blockId: string) {
  return values[blockId]?.[INPUT_ACTION_ID];
}

/** Text of a text, email or number input, trimmed; undefined when empty. */
export function textValue(values: Values, blockId: string): string | undefined {
  const value = field(values, blockId)?.value?.trim();
  return value ? value : undefined;
}

export function selectedValue(values: Values, blockId: string): string | undefined {
  return field(values, blockId)?.selected_option?.value ?? undefined;
}

export function checkedValues(values: Values, blockId: string): string[] {
  return (field(values, blockId)?.selected_options ?? []).map((o) => o.value);
}

/** A datetimepicker's choice as a Date; undefined when empty. */
export function dateTimeValue(values: Values, blockId: string): Date | undefined {
  const seconds = field(values, blockId)?.selected_date_time;
  return typeof seconds === 'number' ? new Date(seconds * 1000) : undefined;
}
