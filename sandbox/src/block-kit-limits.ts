import { asText } from './as-text.js';

/*
 * Block Kit limits as Slack documents them (../shared/slack-platform-facts.md §1-2), written independently
 * of the app's own limits module so that a mistake there is caught here. The fake Slack rejects any
 * message or view that breaks one, the way Slack answers invalid_blocks / invalid_arguments.
 */

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

class Problems {
  readonly list: string[] = [];
  add(path: string, message: string): void {
    this.list.push(`${path}: ${message}`);
  }
  max(path: string, value: unknown, max: number): void {
    if (typeof value === 'string' && value.length > max)
      this.add(path, `must be at most ${max} characters (has ${value.length})`);
  }
}

function text(
  p: Problems,
  path: string,
  value: unknown,
  max: number,
  opts: { plainOnly?: boolean; required?: boolean } = {},
): void {
  if (value === undefined) {
    if (opts.required) p.add(path, 'is required');
    return;
  }
  if (!isObject(value)) return p.add(path, 'must be a text object');
  if (value.type !== 'plain_text' && value.type !== 'mrkdwn') p.add(`${path}.type`, 'must be plain_text or mrkdwn');
  if (opts.plainOnly && value.type !== 'plain_text') p.add(`${path}.type`, 'must be plain_text');
  if (typeof value.text !== 'string' || value.text.length === 0) p.add(`${path}.text`, 'must be 1 or more characters');
  p.max(`${path}.text`, value.text, max);
}

function confirm(p: Problems, path: string, value: unknown): void {
  if (value === undefined) return;
  if (!isObject(value)) return p.add(path, 'must be a confirm object');
  text(p, `${path}.title`, value.title, 100, { plainOnly: true, required: true });
  text(p, `${path}.text`, value.text, 300, { required: true });
  text(p, `${path}.confirm`, value.confirm, 30, { plainOnly: true, required: true });
  text(p, `${path}.deny`, value.deny, 30, { plainOnly: true, required: true });
}

function option(p: Problems, path: string, value: unknown, allowMrkdwn: boolean): void {
  if (!isObject(value)) return p.add(path, 'must be an option object');
  text(p, `${path}.text`, value.text, 75, { plainOnly: !allowMrkdwn, required: true });
  if (typeof value.value !== 'string') p.add(`${path}.value`, 'is required');
  p.max(`${path}.value`, value.value, 150);
  text(p, `${path}.description`, value.description, 75);
}

function element(p: Problems, path: string, e: unknown): void {
  if (!isObject(e)) return p.add(path, 'must be an element object');
  p.max(`${path}.action_id`, e.action_id, 255);
  text(p, `${path}.placeholder`, e.placeholder, 150, { plainOnly: true });
  confirm(p, `${path}.confirm`, e.confirm);
  const options = asArray(e.options);
  switch (e.type) {
    case 'button':
      text(p, `${path}.text`, e.text, 75, { plainOnly: true, required: true });
      p.max(`${path}.value`, e.value, 2000);
      p.max(`${path}.url`, e.url, 3000);
      if (e.style !== undefined && e.style !== 'primary' && e.style !== 'danger')
        p.add(`${path}.style`, 'must be primary or danger');
      break;
    case 'static_select':
    case 'multi_static_select':
      if (e.options === undefined && e.option_groups === undefined) p.add(path, 'needs options or option_groups');
      if (options.length > 100) p.add(`${path}.options`, 'must have at most 100 items');
      options.forEach((o, i) => option(p, `${path}.options[${i}]`, o, false));
      if (e.initial_option !== undefined) option(p, `${path}.initial_option`, e.initial_option, false);
      break;
    case 'overflow':
      if (options.length < 1 || options.length > 5) p.add(`${path}.options`, 'must have 1 to 5 items');
      options.forEach((o, i) => option(p, `${path}.options[${i}]`, o, false));
      break;
    case 'checkboxes':
    case 'radio_buttons':
      if (options.length < 1 || options.length > 10) p.add(`${path}.options`, 'must have 1 to 10 items');
      options.forEach((o, i) => option(p, `${path}.options[${i}]`, o, true));
      for (const [i, o] of asArray(e.initial_options).entries()) {
        if (!options.some((candidate) => JSON.stringify(candidate) === JSON.stringify(o))) {
          p.add(`${path}.initial_options[${i}]`, 'must exactly match one of the options');
        }
      }
      break;
    case 'plain_text_input':
      for (const key of ['min_length', 'max_length'] as const) {
        const n = e[key];
        if (n !== undefined && (typeof n !== 'number' || n < (key === 'max_length' ? 1 : 0) || n > 3000))
          p.add(`${path}.${key}`, 'must be within 0..3000');
      }
      p.max(`${path}.initial_value`, e.initial_value, typeof e.max_length === 'number' ? e.max_length : 3000);
      break;
    case 'number_input':
      if (typeof e.is_decimal_allowed !== 'boolean') p.add(`${path}.is_decimal_allowed`, 'is required');
      for (const key of ['min_value', 'max_value', 'initial_value'] as const) {
        if (e[key] !== undefined && typeof e[key] !== 'string') p.add(`${path}.${key}`, 'must be a string');
      }
      break;
    case 'datepicker':
      if (e.initial_date !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(asText(e.initial_date)))
        p.add(`${path}.initial_date`, 'must be YYYY-MM-DD');
      break;
    case 'timepicker':
      if (e.initial_time !== undefined && !/^\d{2}:\d{2}$/.test(asText(e.initial_time)))
        p.add(`${path}.initial_time`, 'must be HH:mm');
      break;
    case 'datetimepicker':
      if (
        e.initial_date_time !== undefined &&
        !(Number.isInteger(e.initial_date_time) && asText(e.initial_date_time).length === 10)
      ) {
        p.add(`${path}.initial_date_time`, 'must be UNIX seconds (10 digits)');
      }
      break;
    case 'image':
      p.max(`${path}.image_url`, e.image_url, 3000);
      if (typeof e.alt_text !== 'string' || e.alt_text.length === 0) p.add(`${path}.alt_text`, 'is required');
      p.max(`${path}.alt_text`, e.alt_text, 2000);
      break;
    case 'file_input':
      if (
        e.max_files !== undefined &&
        (!Number.isInteger(e.max_files) || Number(e.max_files) < 1 || Number(e.max_files) > 10)
      )
        p.add(`${path}.max_files`, 'must be 1..10');
      if (e.filetypes !== undefined && !Array.isArray(e.filetypes)) p.add(`${path}.filetypes`, 'must be an array');
      break;
    case 'email_text_input':
    case 'url_text_input':
    case 'users_select':
    case 'multi_users_select':
    case 'conversations_select':
    case 'multi_conversations_select':
    case 'channels_select':
    case 'multi_channels_select':
    case 'rich_text_input':
      break;
    case 'external_select':
    case 'multi_external_select':
      // Their options come from the app as the person types; those shown at first come with the view.
      if (e.initial_option !== undefined) option(p, `${path}.initial_option`, e.initial_option, false);
      asArray(e.initial_options).forEach((o, i) => option(p, `${path}.initial_options[${i}]`, o, false));
      if (
        e.min_query_length !== undefined &&
        !(Number.isInteger(e.min_query_length) && Number(e.min_query_length) >= 0)
      )
        p.add(`${path}.min_query_length`, 'must be a whole number of 0 or more');
      break;
    default:
      p.add(`${path}.type`, `unknown element type ${String(e.type)}`);
  }
}

function block(p: Problems, path: string, b: unknown, surface: 'message' | 'modal' | 'home'): void {
  if (!isObject(b)) return p.add(path, 'must be a block object');
  p.max(`${path}.block_id`, b.block_id, 255);
  switch (b.type) {
    case 'section': {
      if (b.text === undefined && b.fields === undefined) p.add(path, 'needs text or fields');
      text(p, `${path}.text`, b.text, 3000);
      const fields = asArray(b.fields);
      if (fields.length > 10) p.add(`${path}.fields`, 'must have at most 10 items');
      fields.forEach((f, i) => text(p, `${path}.fields[${i}]`, f, 2000));
      if (b.accessory !== undefined) element(p, `${path}.accessory`, b.accessory);
      break;
    }
    case 'header':
      text(p, `${path}.text`, b.text, 150, { plainOnly: true, required: true });
      break;
    case 'context': {
      const elements = asArray(b.elements);
      if (elements.length < 1 || elements.length > 10) p.add(`${path}.elements`, 'must have 1 to 10 items');
      elements.forEach((e, i) =>
        isObject(e) && e.type === 'image'
          ? element(p, `${path}.elements[${i}]`, e)
          : text(p, `${path}.elements[${i}]`, e, 3000),
      );
      break;
    }
    case 'actions': {
      const elements = asArray(b.elements);
      if (elements.length < 1 || elements.length > 25) p.add(`${path}.elements`, 'must have 1 to 25 items');
      elements.forEach((e, i) => element(p, `${path}.elements[${i}]`, e));
      const ids = elements.map((e) => (isObject(e) ? e.action_id : undefined)).filter((id) => id !== undefined);
      if (new Set(ids).size !== ids.length) p.add(`${path}.elements`, 'action_id must be unique within the block');
      break;
    }
    case 'divider':
      break;
    case 'image':
      element(p, path, { ...b, type: 'image' });
      text(p, `${path}.title`, b.title, 2000, { plainOnly: true });
      break;
    case 'input':
      if (surface === 'message') p.add(path, 'input blocks belong in modals and Home tabs');
      text(p, `${path}.label`, b.label, 2000, { plainOnly: true, required: true });
      text(p, `${path}.hint`, b.hint, 2000, { plainOnly: true });
      if (b.element === undefined) p.add(`${path}.element`, 'is required');
      else element(p, `${path}.element`, b.element);
      if (isObject(b.element) && b.element.type === 'file_input') {
        if (surface !== 'modal') p.add(`${path}.element`, 'file_input belongs in modals');
        if (b.dispatch_action === true) p.add(`${path}.dispatch_action`, 'cannot be used with file_input');
      }
      break;
    case 'markdown':
      if (surface !== 'message') p.add(path, 'markdown blocks belong in messages');
      p.max(`${path}.text`, b.text, 12000);
      break;
    case 'rich_text':
      break;
    default:
      p.add(`${path}.type`, `unknown block type ${String(b.type)}`);
  }
}

function blocks(p: Problems, list: unknown, max: number, surface: 'message' | 'modal' | 'home'): void {
  if (list === undefined) return;
  if (!Array.isArray(list)) return p.add('blocks', 'must be an array');
  if (list.length > max) p.add('blocks', `must have at most ${max} items (has ${list.length})`);
  list.forEach((b, i) => block(p, `blocks[${i}]`, b, surface));
  const ids = list.map((b) => (isObject(b) ? b.block_id : undefined)).filter((id) => id !== undefined);
  if (new Set(ids).size !== ids.length) p.add('blocks', 'block_id must be unique');
}

/**
 * Slack documents per-block limits only, but has refused messages of ~13.2k characters of block text as a
 * whole (msg_blocks_too_long, bolt-js#2509). The fake refuses from 12,000 to keep a margin.
 */
const MESSAGE_BLOCK_TEXT_MAX = 12_000;

/** Problems with a message (chat.postMessage/update/postEphemeral, response_url, ack bodies). */
export function messageProblems(message: { text?: unknown; blocks?: unknown }): string[] {
  const p = new Problems();
  blocks(p, message.blocks, 50, 'message');
  const texts = JSON.stringify(message.blocks ?? []).match(/"text":"((?:[^"\\]|\\.)*)"/g) ?? [];
  const blockText = texts.reduce((sum, t) => sum + t.length - '"text":""'.length, 0);
  if (blockText > MESSAGE_BLOCK_TEXT_MAX)
    p.add(
      'blocks',
      `msg_blocks_too_long: ${blockText} characters of text in all (kept under ${MESSAGE_BLOCK_TEXT_MAX})`,
    );
  if (message.blocks !== undefined && (typeof message.text !== 'string' || message.text.length === 0)) {
    // Slack only warns; this app always sends fallback text for notifications and screen readers.
    p.add('text', 'fallback text is required with blocks');
  }
  p.max('text', message.text, 40_000);
  return p.list;
}

/**
 * Problems with the app's answer to a block_suggestion (the options of an external select): `options` or
 * `option_groups`, at most 100 of them, each option as in a static select.
 */
export function optionsAnswerProblems(answer: unknown): string[] {
  const p = new Problems();
  if (!isObject(answer) || (!Array.isArray(answer.options) && !Array.isArray(answer.option_groups)))
    return ['the answer must hold options or option_groups'];
  const options = asArray(answer.options);
  const groups = asArray(answer.option_groups);
  if (options.length > 100) p.add('options', `must have at most 100 items (has ${options.length})`);
  if (groups.length > 100) p.add('option_groups', `must have at most 100 items (has ${groups.length})`);
  options.forEach((o, i) => option(p, `options[${i}]`, o, false));
  groups.forEach((g, i) => {
    if (!isObject(g)) return p.add(`option_groups[${i}]`, 'must be an option group');
    text(p, `option_groups[${i}].label`, g.label, 75, { plainOnly: true, required: true });
    const inGroup = asArray(g.options);
    if (inGroup.length > 100) p.add(`option_groups[${i}].options`, 'must have at most 100 items');
    inGroup.forEach((o, j) => option(p, `option_groups[${i}].options[${j}]`, o, false));
  });
  return p.list;
}

/** Problems with a view (views.open/update/push/publish, response_action update/push). */
export function viewProblems(view: unknown): string[] {
  const p = new Problems();
  if (!isObject(view)) return ['view: must be an object'];
  if (view.type !== 'modal' && view.type !== 'home') p.add('type', 'must be modal or home');
  const surface = view.type === 'home' ? 'home' : 'modal';
  blocks(p, view.blocks, 100, surface);
  if (surface === 'modal') text(p, 'title', view.title, 24, { plainOnly: true, required: true });
  text(p, 'submit', view.submit, 24, { plainOnly: true });
  text(p, 'close', view.close, 24, { plainOnly: true });
  p.max('private_metadata', view.private_metadata, 3000);
  p.max('callback_id', view.callback_id, 255);
  p.max('external_id', view.external_id, 255);
  if (
    surface === 'modal' &&
    view.submit === undefined &&
    asArray(view.blocks).some((b) => isObject(b) && b.type === 'input')
  ) {
    p.add('submit', 'is required when the view has input blocks');
  }
  return p.list;
}
