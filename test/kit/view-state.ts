/*
 * Builds `view.state.values` the way Slack's client does on submission: every input block of the view, with
 * the user's entry where given and the element's initial value otherwise (null when it has none).
 */

type Json = Record<string, any>;

/**
 * What a test "types" into an input, by block id. null clears it. A file_input takes `{ files }`: the file
 * objects Slack puts in the state (FakeSlack.hostFile makes them).
 */
export type Entry = string | string[] | Date | null | { files: Json[] };

export function stateValues(view: Json, entries: Record<string, Entry> = {}): Json {
  const values: Json = {};
  for (const block of view.blocks ?? []) {
    if (block.type !== 'input') continue;
    const element = block.element;
    const entry = Object.hasOwn(entries, block.block_id) ? entries[block.block_id] : undefined;
    values[block.block_id] = { [element.action_id]: { type: element.type, ...elementState(element, entry) } };
  }
  for (const id of Object.keys(entries)) {
    if (!values[id]) throw new Error(`the view has no input block "${id}"`);
  }
  return values;
}

function elementState(element: Json, entry: Entry | undefined): Json {
  if (entry !== null && typeof entry === 'object' && !(entry instanceof Date) && !Array.isArray(entry)) {
    if (element.type !== 'file_input') throw new Error(`files given for a ${element.type}`);
    return { files: entry.files };
  }
  switch (element.type) {
    case 'file_input':
      if (entry !== undefined && entry !== null) throw new Error('a file_input takes { files }');
      return { files: [] }; // Slack sends the files attached, or an empty list
    case 'plain_text_input':
    case 'email_text_input':
    case 'url_text_input':
    case 'number_input':
      return {
        value:
          entry === undefined ? (element.initial_value ?? null) : entry === null || entry === '' ? null : String(entry),
      };
    case 'static_select': {
      if (entry === undefined) return { selected_option: element.initial_option ?? null };
      const found = (element.options as Json[]).find((o) => o.value === entry);
      if (entry !== null && !found) throw new Error(`the select has no option "${String(entry)}"`);
      return { selected_option: found ?? null };
    }
    case 'checkboxes': {
      if (entry === undefined) return { selected_options: element.initial_options ?? [] };
      const wanted = entry === null ? [] : Array.isArray(entry) ? entry : [String(entry)];
      return { selected_options: (element.options as Json[]).filter((o) => wanted.includes(o.value)) };
    }
    case 'datetimepicker': {
      if (entry === undefined) return { selected_date_time: element.initial_date_time ?? null };
      return { selected_date_time: entry instanceof Date ? Math.floor(entry.getTime() / 1000) : null };
    }
    case 'datepicker':
      // A day as Slack sends it (YYYY-MM-DD), typed as such.
      return { selected_date: entry === undefined ? (element.initial_date ?? null) : entry };
    case 'conversations_select':
      return { selected_conversation: entry === undefined ? (element.initial_conversation ?? null) : entry };
    case 'users_select':
      return { selected_user: entry === undefined ? (element.initial_user ?? null) : entry };
    case 'multi_users_select':
      return { selected_users: entry === undefined ? (element.initial_users ?? []) : listEntry(entry) };
    case 'multi_external_select':
    case 'multi_static_select': {
      if (entry === undefined) return { selected_options: element.initial_options ?? [] };
      // External options come from the app as the user types: the test names their values.
      return {
        selected_options: listEntry(entry).map((value) => ({ text: { type: 'plain_text', text: value }, value })),
      };
    }
    default:
      throw new Error(`state for ${element.type} is not supported by the test kit`);
  }
}

function listEntry(entry: Entry): string[] {
  if (entry === null || entry === '') return [];
  if (Array.isArray(entry)) return entry;
  if (typeof entry !== 'string') throw new Error('a multi-select takes a list of values');
  return [entry];
}

/** The response_urls Slack adds for conversation selects with response_url_enabled (one per selection). */
export function responseUrls(view: Json, values: Json, responseUrl: () => string): Json[] {
  const urls: Json[] = [];
  for (const block of view.blocks ?? []) {
    const element = block.element;
    if (block.type !== 'input' || element?.type !== 'conversations_select' || !element.response_url_enabled) continue;
    const channel = values[block.block_id]?.[element.action_id]?.selected_conversation;
    if (channel)
      urls.push({
        block_id: block.block_id,
        action_id: element.action_id,
        channel_id: channel,
        response_url: responseUrl(),
      });
  }
  return urls;
}
