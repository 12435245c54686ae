import type { ViewOutput } from '@slack/bolt';
import { INPUT_ACTION_ID } from './inputs.js';

type Values = ViewOutput['state']['values'];

/** The last second of year 9999: beyond it an ISO 8601 date cannot be written. */
const MAX_UNIX_SECONDS = 253_402_300_799;

/* Readers for a submitted view's state, by the block id of an input built with inputs.ts. */

function field(values: Values, blockId: string) {
  return values[blockId]?.[INPUT_ACTION_ID];
}

/** Text of a text, email or number input, trimmed; undefined when empty. */
export function textValue(values: Values, blockId: string): string | undefined {
  const value = field(values, blockId)?.value;
  // Slack sends a string or null; anything else was not sent by Slack's form, and counts as empty.
  const text = typeof value === 'string' ? value.trim() : '';
  return text ? text : undefined;
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
  // An Invalid Date for a number no date picker sends (a forged one): the form's check then refuses it.
  if (typeof seconds !== 'number') return undefined;
  return Number.isSafeInteger(seconds) && Math.abs(seconds) <= MAX_UNIX_SECONDS
    ? new Date(seconds * 1000)
    : new Date(Number.NaN);
}

/** A file a user attached in a file_input: what the app needs of Slack's file object. */
export interface AttachedFile {
  id: string;
  name: string;
  /** The size Slack reports, in bytes. */
  size: number;
  /** Where the bot token downloads it (files:read). */
  downloadUrl: string;
}

/** The files of a file_input (none when empty); a file object without its id or download URL is left out. */
export function filesValue(values: Values, blockId: string): AttachedFile[] {
  const files: unknown = field(values, blockId)?.files;
  if (!Array.isArray(files)) return [];
  return files.flatMap((file: Record<string, unknown>) => {
    const url = file.url_private_download ?? file.url_private;
    if (typeof file.id !== 'string' || typeof url !== 'string') return [];
    return [
      {
        id: file.id,
        name: typeof file.name === 'string' && file.name ? file.name : file.id,
        size: typeof file.size === 'number' ? file.size : Number.NaN,
        downloadUrl: url,
      },
    ];
  });
}
