// Block Kit, drawn as Slack's clients draw it: messages, modals and the Home tab. Every text object arrives
// with `html` made safe by the server (sandbox/src/mrkdwn-html.ts); anything else is set as text, never as
// markup. Inputs keep what the person entered; `collectValues` reads it back as Slack's `view.state.values`.

/** @typedef {{ surface: 'message'|'modal'|'home', errors?: Record<string,string>, people: any[], conversations: any[],
 *   currentConversation?: string, me: string, onAction: (action: any) => void, upload: (file: File) => Promise<any>,
 *   suggest: (blockId: string, actionId: string, value: string) => Promise<any>, blockId?: string }} Ctx */

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') el.className = value;
    else if (key === 'html') el.innerHTML = value;
    else if (key.startsWith('on')) el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** A text object's HTML (computed by the server), or its text as text. */
export function textNode(text, tag = 'span', cls = '') {
  if (!text) return h(tag, { class: cls });
  return text.html !== undefined ? h(tag, { class: cls, html: text.html }) : h(tag, { class: cls }, text.text ?? '');
}

/** @param {any[]} blocks @param {Ctx} ctx */
export function renderBlocks(blocks, ctx) {
  return h(
    'div',
    { class: 'blocks' },
    (blocks ?? []).map((block) => renderBlock(block, ctx)),
  );
}

function renderBlock(block, ctx) {
  switch (block.type) {
    case 'section':
      return section(block, ctx);
    case 'header':
      return h('div', { class: 'bk-header' }, textNode(block.text));
    case 'divider':
      return h('hr', { class: 'bk-divider' });
    case 'context':
      return h(
        'div',
        { class: 'bk-context' },
        (block.elements ?? []).map((e) => (e.type === 'image' ? image(e, 'bk-context-image') : textNode(e))),
      );
    case 'image':
      return h('figure', { class: 'bk-image' }, block.title ? textNode(block.title, 'figcaption') : null, image(block));
    case 'actions':
      return h(
        'div',
        { class: 'bk-actions', 'data-block-id': block.block_id },
        (block.elements ?? []).map((e) => element(e, block.block_id, ctx)),
      );
    case 'input':
      return input(block, ctx);
    case 'markdown':
      return h('div', { class: 'bk-section', html: block.html ?? '' });
    case 'rich_text':
      return h('div', { class: 'bk-section' }, richText(block));
    default:
      return h('div', { class: 'bk-unknown' }, `[${block.type} block]`);
  }
}

function section(block, ctx) {
  const body = h('div', { class: 'bk-section-body' }, block.text ? textNode(block.text, 'div', 'bk-text') : null);
  if (block.fields)
    body.append(
      h(
        'div',
        { class: 'bk-fields' },
        block.fields.map((f) => textNode(f, 'div', 'bk-field')),
      ),
    );
  const accessory = block.accessory ? element(block.accessory, block.block_id, ctx, true) : null;
  return h('div', { class: 'bk-section', 'data-block-id': block.block_id }, body, accessory);
}

function richText(block) {
  const out = [];
  for (const part of block.elements ?? [])
    for (const item of part.elements ?? []) out.push(item.text ?? (item.type === 'user' ? `@${item.user_id}` : ''));
  return out.join('');
}

function image(e, cls = 'bk-img') {
  const img = h('img', { class: cls, src: e.image_url, alt: e.alt_text ?? '', loading: 'lazy' });
  img.addEventListener('error', () => {
    // The sandbox works offline: an image that cannot load shows as Slack shows one, a tile with its alt text.
    img.replaceWith(h('div', { class: `${cls} img-fallback`, title: e.alt_text ?? '' }, initials(e.alt_text)));
  });
  return img;
}

function initials(text = '') {
  const number = /\d+/.exec(text);
  return number ? `#${number[0]}` : text.slice(0, 2).toUpperCase() || '🖼';
}

// ---- Interactive elements (in actions blocks and accessories) ------------------------------------------

function element(e, blockId, ctx, accessory = false) {
  switch (e.type) {
    case 'button':
      return button(e, blockId, ctx);
    case 'image':
      return image(e, accessory ? 'bk-accessory-image' : 'bk-img');
    case 'static_select':
    case 'overflow':
      return actionSelect(e, blockId, ctx);
    default:
      return h('span', { class: 'bk-unknown' }, `[${e.type}]`);
  }
}

function button(e, blockId, ctx) {
  const el = h(
    'button',
    {
      type: 'button',
      class: `bk-button ${e.style ?? ''}`,
      'data-action-id': e.action_id,
      'data-value': e.value,
    },
    textNode(e.text),
  );
  el.addEventListener('click', async () => {
    if (e.confirm && !(await confirmDialog(e.confirm))) return;
    if (e.url) window.open(e.url, '_blank', 'noopener');
    ctx.onAction({
      type: 'button',
      action_id: e.action_id,
      block_id: blockId,
      ...(e.value !== undefined ? { value: e.value } : {}),
      text: { type: 'plain_text', text: e.text?.text ?? '' },
    });
  });
  return el;
}

function actionSelect(e, blockId, ctx) {
  const select = h(
    'select',
    { class: 'bk-select', 'data-action-id': e.action_id },
    h('option', { value: '' }, e.type === 'overflow' ? '⋯' : (e.placeholder?.text ?? 'Select an item')),
    (e.options ?? []).map((o) =>
      h('option', { value: o.value, selected: e.initial_option?.value === o.value }, o.text?.text ?? o.value),
    ),
  );
  select.addEventListener('change', () => {
    const chosen = (e.options ?? []).find((o) => o.value === select.value);
    if (chosen)
      ctx.onAction({
        type: e.type,
        action_id: e.action_id,
        block_id: blockId,
        selected_option: { text: { type: 'plain_text', text: chosen.text?.text ?? '' }, value: chosen.value },
      });
  });
  return select;
}

/** Slack's confirmation dialog for a button with `confirm`. */
export function confirmDialog(confirm) {
  return new Promise((resolve) => {
    const layer = h('div', { class: 'confirm-layer' });
    const done = (answer) => {
      layer.remove();
      resolve(answer);
    };
    layer.append(
      h(
        'div',
        { class: 'confirm', role: 'dialog', 'aria-label': confirm.title?.text ?? 'Confirm' },
        h('h3', {}, textNode(confirm.title)),
        textNode(confirm.text, 'div', 'confirm-text'),
        h(
          'div',
          { class: 'confirm-buttons' },
          h('button', { type: 'button', class: 'bk-button', onclick: () => done(false) }, textNode(confirm.deny)),
          h(
            'button',
            {
              type: 'button',
              class: `bk-button ${confirm.style === 'danger' ? 'danger' : 'primary'}`,
              onclick: () => done(true),
            },
            textNode(confirm.confirm),
          ),
        ),
      ),
    );
    document.body.append(layer);
  });
}

// ---- Input blocks ---------------------------------------------------------------------------------------

function input(block, ctx) {
  const e = block.element ?? {};
  const id = `in-${block.block_id}`;
  const field = inputElement(e, id, { ...ctx, blockId: block.block_id });
  field.classList.add('bk-input');
  field.dataset.blockId = block.block_id;
  field.dataset.actionId = e.action_id;
  field.dataset.type = e.type;
  field.dataset.optional = block.optional ? 'true' : 'false';
  const error = ctx.errors?.[block.block_id];
  return h(
    'div',
    { class: `bk-input-block${error ? ' has-error' : ''}`, 'data-block-id': block.block_id },
    h(
      'label',
      { for: id, class: 'bk-label' },
      textNode(block.label),
      block.optional ? h('span', { class: 'optional' }, ' (optional)') : null,
    ),
    field,
    error ? h('div', { class: 'bk-error', role: 'alert' }, error) : null,
    block.hint ? textNode(block.hint, 'div', 'bk-hint') : null,
  );
}

function inputElement(e, id, ctx) {
  const placeholder = e.placeholder?.text;
  switch (e.type) {
    case 'plain_text_input': {
      const attrs = { id, placeholder, maxlength: e.max_length, minlength: e.min_length };
      const el = e.multiline ? h('textarea', { ...attrs, rows: 4 }) : h('input', { ...attrs, type: 'text' });
      el.value = e.initial_value ?? '';
      el.readState = () => ({ type: e.type, value: el.value === '' ? null : el.value });
      el.writeRaw = (raw) => (el.value = raw);
      el.readRaw = () => el.value;
      return el;
    }
    case 'email_text_input':
    case 'url_text_input':
    case 'number_input': {
      const type = e.type === 'email_text_input' ? 'email' : e.type === 'url_text_input' ? 'url' : 'text';
      const el = h('input', { id, type, placeholder, inputmode: e.type === 'number_input' ? 'decimal' : undefined });
      el.value = e.initial_value ?? '';
      el.readState = () => ({ type: e.type, value: el.value.trim() === '' ? null : el.value.trim() });
      el.writeRaw = (raw) => (el.value = raw);
      el.readRaw = () => el.value;
      el.slackCheck = () => slackClientCheck(e, el.value.trim());
      return el;
    }
    case 'datetimepicker':
      return dateTime(e, id, ctx.timeZone);
    case 'datepicker': {
      const el = h('input', { id, type: 'date' });
      el.value = e.initial_date ?? '';
      el.readState = () => ({ type: e.type, selected_date: el.value || null });
      el.writeRaw = (raw) => (el.value = raw);
      el.readRaw = () => el.value;
      return el;
    }
    case 'static_select':
      return select(
        e,
        id,
        e.options ?? [],
        (o) => o.value,
        (o) => o.text?.text ?? o.value,
        e.initial_option?.value,
        (o) => ({
          type: e.type,
          selected_option: o ? { text: o.text, value: o.value } : null,
        }),
      );
    case 'users_select':
      return select(
        e,
        id,
        ctx.people,
        (p) => p.id,
        (p) => p.name,
        e.initial_user,
        (p) => ({
          type: e.type,
          selected_user: p ? p.id : null,
        }),
      );
    case 'conversations_select':
    case 'channels_select': {
      const initial =
        e.initial_conversation ??
        e.initial_channel ??
        (e.default_to_current_conversation ? ctx.currentConversation : undefined);
      const key = e.type === 'channels_select' ? 'selected_channel' : 'selected_conversation';
      const list = conversationsFor(e, ctx);
      return select(
        e,
        id,
        list,
        (c) => c.id,
        (c) => (c.kind === 'channel' ? `# ${c.name}` : `${c.name} (direct message)`),
        initial,
        (c) => ({
          type: e.type,
          [key]: c ? c.id : null,
        }),
      );
    }
    case 'multi_users_select':
      return multiSelect(e, id, {
        initial: (e.initial_users ?? []).map((user) => personItem(user, ctx)),
        load: async (query) => ({ items: ctx.people.map((p) => personItem(p.id, ctx)).filter(matches(query)) }),
        stateOf: (items) => ({ type: e.type, selected_users: items.map((i) => i.value) }),
      });
    case 'multi_conversations_select':
    case 'multi_channels_select': {
      const channels = e.type === 'multi_channels_select';
      const list = conversationsFor(e, ctx).map(conversationItem);
      const initial = (channels ? e.initial_channels : e.initial_conversations) ?? [];
      const current = e.default_to_current_conversation ? [ctx.currentConversation] : [];
      return multiSelect(e, id, {
        initial: (initial.length > 0 ? initial : current).flatMap((c) => list.filter((item) => item.value === c)),
        load: async (query) => ({ items: list.filter(matches(query)) }),
        stateOf: (items) => ({
          type: e.type,
          [channels ? 'selected_channels' : 'selected_conversations']: items.map((i) => i.value),
        }),
      });
    }
    case 'multi_static_select': {
      const items = optionItems(e.options, e.option_groups);
      return multiSelect(e, id, {
        initial: (e.initial_options ?? []).map((o) => optionItem(o)),
        load: async (query) => ({ items: items.filter(matches(query)) }),
        stateOf: (chosen) => ({ type: e.type, selected_options: chosen.map((i) => i.option) }),
      });
    }
    case 'multi_external_select':
      // Slack asks the app for the options of what was typed (a block_suggestion), from min_query_length on.
      return multiSelect(e, id, {
        initial: (e.initial_options ?? []).map((o) => optionItem(o)),
        minQuery: e.min_query_length ?? 3,
        remote: true,
        load: async (query) => {
          const answer = await ctx.suggest(ctx.blockId, e.action_id, query);
          if (!answer.ok) return { error: 'We couldn’t load the options. Try again?' };
          return { items: optionItems(answer.options, answer.optionGroups) };
        },
        stateOf: (chosen) => ({ type: e.type, selected_options: chosen.map((i) => i.option) }),
      });
    case 'checkboxes':
    case 'radio_buttons':
      return choices(e, id);
    case 'file_input':
      return fileInput(e, id, ctx);
    default: {
      const el = h('div', { id, class: 'bk-unknown' }, `[${e.type} is not drawn by the sandbox]`);
      el.readState = () => ({ type: e.type });
      return el;
    }
  }
}

/** What Slack's own client refuses before sending anything (shown under the field). */
function slackClientCheck(e, value) {
  if (value === '') return undefined;
  if (e.type === 'email_text_input' && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value))
    return 'Please enter a valid email address.';
  if (e.type === 'number_input') {
    const n = Number(value);
    if (!Number.isFinite(n)) return 'Please enter a number.';
    if (!e.is_decimal_allowed && !Number.isInteger(n)) return 'Please enter a whole number.';
    if (e.min_value !== undefined && n < Number(e.min_value))
      return `Please enter a number of at least ${e.min_value}.`;
    if (e.max_value !== undefined && n > Number(e.max_value)) return `Please enter a number of at most ${e.max_value}.`;
  }
  return undefined;
}

/** The conversations a conversation select offers: its filter's kinds (the sandbox's channels are public). */
function conversationsFor(e, ctx) {
  if (e.type === 'channels_select' || e.type === 'multi_channels_select')
    return ctx.conversations.filter((c) => c.kind === 'channel');
  const include = e.filter?.include;
  if (Array.isArray(include) && !include.includes('im'))
    return ctx.conversations.filter(
      (c) => c.kind === 'channel' && (include.includes('public') || include.includes('private')),
    );
  return ctx.conversations;
}

// ---- Multi-select menus ---------------------------------------------------------------------------------

/** An item of a multi-select: its value, the words shown, and the option Slack sends back (options only). */
function personItem(userId, ctx) {
  const person = ctx.people.find((p) => p.id === userId);
  return { value: userId, label: person?.name ?? userId, color: person?.color };
}

function conversationItem(c) {
  return { value: c.id, label: c.kind === 'channel' ? `# ${c.name}` : `${c.name} (direct message)` };
}

/** An option as Slack sends it back in selected_options: as the app gave it, without the page's own html. */
function optionItem(o, group) {
  const text = o.text
    ? { type: o.text.type, text: o.text.text, ...(o.text.emoji !== undefined ? { emoji: o.text.emoji } : {}) }
    : undefined;
  return {
    value: o.value,
    label: o.text?.text ?? o.value,
    shown: o.text,
    group,
    option: { text, value: o.value, ...(o.description ? { description: o.description } : {}) },
  };
}

function optionItems(options, groups) {
  if (Array.isArray(groups)) return groups.flatMap((g) => (g.options ?? []).map((o) => optionItem(o, g.label)));
  return (options ?? []).map((o) => optionItem(o));
}

const matches = (query) => (item) =>
  item.label.toLowerCase().includes(
    query
      .trim()
      .replace(/^[@#]\s*/, '')
      .toLowerCase(),
  );

/** A person's initial on their colour, before their name in a chip or a menu. */
function avatar(item) {
  if (!item.color) return null;
  return h(
    'span',
    { class: 'bk-chip-avatar', style: `background:${item.color}`, 'aria-hidden': 'true' },
    item.label[0],
  );
}

/**
 * Slack's multi-select menus: the chosen items as chips (× removes one, as does Backspace in an empty box),
 * and a box to type in whose list offers what can be added: the workspace's people or conversations, the
 * element's options, or the options the app sends for what was typed. max_selected_items is honoured.
 */
function multiSelect(e, id, source) {
  let chosen = source.initial.filter((item, i, all) => all.findIndex((x) => x.value === item.value) === i);
  const max = e.max_selected_items;
  const minQuery = source.minQuery ?? 0;
  const listId = `${id}-list`;
  const box = h('input', {
    id,
    type: 'text',
    class: 'bk-multi-query',
    role: 'combobox',
    autocomplete: 'off',
    'aria-autocomplete': 'list',
    'aria-controls': listId,
    'aria-expanded': 'false',
  });
  const chips = h('span', { class: 'bk-chips' });
  const menu = h('ul', { id: listId, class: 'bk-menu', role: 'listbox', hidden: true });
  const field = h('div', { class: 'bk-multi-field', onclick: () => box.focus() }, chips, box);
  const el = h('div', { class: 'bk-multi' }, field, menu);
  let shown = [];
  let active = 0;
  let asked = 0;
  let timer;

  const drawChips = () => {
    chips.replaceChildren(
      ...chosen.map((item) =>
        h(
          'span',
          { class: 'bk-chip', 'data-value': item.value },
          avatar(item),
          item.shown
            ? textNode(item.shown, 'span', 'bk-chip-label')
            : h('span', { class: 'bk-chip-label' }, item.label),
          h(
            'button',
            {
              type: 'button',
              class: 'bk-chip-remove',
              'aria-label': `Remove ${item.label}`,
              onclick: (event) => {
                event.stopPropagation();
                chosen = chosen.filter((x) => x !== item);
                drawChips();
              },
            },
            '×',
          ),
        ),
      ),
    );
    const full = max !== undefined && chosen.length >= max;
    box.placeholder = chosen.length === 0 ? (e.placeholder?.text ?? 'Select items') : full ? '' : 'Add more…';
  };
  const close = () => {
    menu.hidden = true;
    box.setAttribute('aria-expanded', 'false');
  };
  const say = (text) => {
    menu.replaceChildren(h('li', { class: 'bk-menu-note' }, text));
    menu.hidden = false;
    box.setAttribute('aria-expanded', 'true');
  };
  const drawMenu = () => {
    if (shown.length === 0) return say('No results');
    let group;
    const rows = [];
    shown.forEach((item, i) => {
      if (item.group && item.group !== group) rows.push(h('li', { class: 'bk-menu-group' }, textNode(item.group)));
      group = item.group;
      const row = h(
        'li',
        {
          role: 'option',
          class: `bk-menu-item${i === active ? ' active' : ''}`,
          'aria-selected': i === active ? 'true' : 'false',
          // mousedown, not click: the box must keep the focus until the item is added.
          onmousedown: (event) => {
            event.preventDefault();
            add(item);
          },
        },
        avatar(item),
        item.shown ? textNode(item.shown) : item.label,
      );
      rows.push(row);
    });
    menu.replaceChildren(...rows);
    menu.hidden = false;
    box.setAttribute('aria-expanded', 'true');
  };
  const open = async () => {
    const query = box.value;
    if (max !== undefined && chosen.length >= max) return say(`You can choose up to ${max}.`);
    if (query.length < minQuery)
      return say(`Type at least ${minQuery} character${minQuery === 1 ? '' : 's'} to search`);
    const mine = ++asked;
    if (source.remote) say('Loading…');
    const found = await source.load(query);
    if (mine !== asked || document.activeElement !== box) return;
    if (found.error) return say(found.error);
    shown = found.items.filter((item) => !chosen.some((c) => c.value === item.value));
    active = 0;
    drawMenu();
  };
  const add = (item) => {
    if (max !== undefined && chosen.length >= max) return;
    if (!chosen.some((c) => c.value === item.value)) chosen.push(item);
    box.value = '';
    drawChips();
    void open();
  };
  box.addEventListener('focus', () => void open());
  box.addEventListener('blur', () => {
    asked += 1;
    close();
  });
  box.addEventListener('input', () => {
    clearTimeout(timer);
    // The app is asked once the typing pauses, as Slack does; local lists follow every key.
    timer = setTimeout(() => void open(), source.remote ? 250 : 0);
  });
  box.addEventListener('keydown', (event) => {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      if (shown.length === 0) return;
      active = (active + (event.key === 'ArrowDown' ? 1 : shown.length - 1)) % shown.length;
      drawMenu();
    } else if (event.key === 'Enter') {
      event.preventDefault();
      const item = !menu.hidden && shown[active];
      if (item) add(item);
    } else if (event.key === 'Escape') {
      close();
    } else if (event.key === 'Backspace' && box.value === '' && chosen.length > 0) {
      chosen = chosen.slice(0, -1);
      drawChips();
    }
  });
  drawChips();
  el.readState = () => source.stateOf(chosen);
  el.readRaw = () => JSON.stringify(chosen);
  el.writeRaw = (raw) => {
    chosen = JSON.parse(raw);
    drawChips();
  };
  return el;
}

function select(e, id, items, keyOf, labelOf, initial, stateOf) {
  const el = h(
    'select',
    { id },
    h('option', { value: '' }, e.placeholder?.text ?? 'Select an item'),
    items.map((item) => h('option', { value: keyOf(item), selected: keyOf(item) === initial }, labelOf(item))),
  );
  el.readState = () => stateOf(items.find((item) => keyOf(item) === el.value));
  el.writeRaw = (raw) => (el.value = raw);
  el.readRaw = () => el.value;
  return el;
}

function choices(e, id) {
  const multiple = e.type === 'checkboxes';
  const initial = new Set(
    multiple ? (e.initial_options ?? []).map((o) => o.value) : e.initial_option ? [e.initial_option.value] : [],
  );
  const boxes = (e.options ?? []).map((o, i) => {
    const box = h('input', {
      type: multiple ? 'checkbox' : 'radio',
      name: id,
      id: `${id}-${i}`,
      value: o.value,
      checked: initial.has(o.value),
    });
    return h(
      'label',
      { class: 'bk-choice', for: `${id}-${i}` },
      box,
      h('span', {}, textNode(o.text), o.description ? textNode(o.description, 'div', 'bk-hint') : null),
    );
  });
  const el = h('div', { id, class: 'bk-choices' }, boxes);
  const chosen = () => (e.options ?? []).filter((o, i) => el.querySelector(`#${CSS.escape(`${id}-${i}`)}`).checked);
  el.readState = () =>
    multiple
      ? {
          type: e.type,
          selected_options: chosen().map((o) => ({
            text: o.text,
            value: o.value,
            ...(o.description ? { description: o.description } : {}),
          })),
        }
      : { type: e.type, selected_option: chosen()[0] ? { text: chosen()[0].text, value: chosen()[0].value } : null };
  el.readRaw = () => JSON.stringify(chosen().map((o) => o.value));
  el.writeRaw = (raw) => {
    const values = new Set(JSON.parse(raw));
    el.querySelectorAll('input').forEach((box) => (box.checked = values.has(box.value)));
  };
  return el;
}

/**
 * Slack shows a date and a time picker side by side, in the person's time zone (users.info `tz`, not the
 * browser's); it sends UNIX seconds.
 */
function dateTime(e, id, timeZone) {
  const date = h('input', { id, type: 'date', 'aria-label': 'Date' });
  const time = h('input', { type: 'time', 'aria-label': 'Time' });
  const pad = (n) => String(n).padStart(2, '0');
  if (e.initial_date_time) {
    const wall = wallClock(new Date(e.initial_date_time * 1000), timeZone);
    date.value = `${wall.year}-${pad(wall.month)}-${pad(wall.day)}`;
    time.value = `${pad(wall.hour)}:${pad(wall.minute)}`;
  }
  const el = h('div', { class: 'bk-datetime' }, date, time);
  el.readState = () => {
    if (!date.value || !time.value) return { type: e.type, selected_date_time: null };
    const [year, month, day] = date.value.split('-').map(Number);
    const [hour, minute] = time.value.split(':').map(Number);
    return {
      type: e.type,
      selected_date_time: Math.floor(zonedMoment(year, month, day, hour, minute, timeZone) / 1000),
    };
  };
  el.readRaw = () => `${date.value}|${time.value}`;
  el.writeRaw = (raw) => ([date.value, time.value] = raw.split('|'));
  el.slackCheck = () =>
    (date.value && !time.value) || (!date.value && time.value) ? 'Please choose a date and a time.' : undefined;
  return el;
}

/**
 * Slack's file box: a file dropped on it or chosen is uploaded to Slack at once; the view state carries it. The
 * browser's own file button (and its "No file chosen") is hidden: the box is its label, as in Slack.
 */
/** What the sandbox's stand-in takes in one upload (page-server.ts says the same when it refuses one). */
const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

function fileInput(e, id, ctx) {
  let files = [];
  /** Why the last files chosen were not added, shown in the box until the next choice. */
  let problem;
  const max = e.max_files ?? 10;
  const types = e.filetypes ?? [];
  const accept = types.map((t) => `.${t}`).join(',') || undefined;
  const picker = h('input', { id, type: 'file', class: 'bk-file-picker', accept, multiple: max > 1 });
  const list = h('div', { class: 'bk-files' });
  const kind = types.length === 1 ? `${types[0].toUpperCase()} file` : 'file';
  const prompt = h(
    'label',
    { class: 'bk-drop', for: id },
    `Drag a ${kind} here or `,
    h('span', { class: 'bk-browse' }, 'choose one'),
  );
  const el = h('div', { class: 'bk-file-input' }, picker, prompt, list);
  const draw = () =>
    list.replaceChildren(
      ...(problem ? [h('div', { class: 'bk-error', role: 'alert' }, problem)] : []),
      ...files.map((f) =>
        h(
          'div',
          { class: 'bk-file' },
          h('span', { class: 'bk-file-name' }, f.name),
          ` · ${formatSize(f.size)} `,
          h(
            'button',
            {
              type: 'button',
              class: 'link-button',
              onclick: () => {
                files = files.filter((x) => x !== f);
                draw();
              },
            },
            'Remove',
          ),
        ),
      ),
    );
  const add = async (chosen) => {
    if (chosen.length === 0) return;
    problem = undefined;
    const tooBig = chosen.filter((f) => f.size > MAX_UPLOAD_BYTES);
    if (tooBig.length > 0) {
      problem = `${tooBig.map((f) => f.name).join(', ')} ${tooBig.length === 1 ? 'is' : 'are'} larger than the sandbox takes (10 MB).`;
      chosen = chosen.filter((f) => f.size <= MAX_UPLOAD_BYTES);
    }
    el.dataset.uploading = 'true';
    list.append(h('div', { class: 'bk-file uploading' }, `Uploading ${chosen.map((f) => f.name).join(', ')}…`));
    try {
      for (const file of chosen) files.push(await ctx.upload(file));
      files = files.slice(-max);
    } catch (error) {
      problem = `The file could not be uploaded: ${error.message}.`;
    } finally {
      delete el.dataset.uploading;
      draw();
    }
  };
  picker.addEventListener('change', () => {
    const chosen = [...picker.files];
    picker.value = '';
    void add(chosen);
  });
  el.addEventListener('dragover', (event) => {
    event.preventDefault();
    el.classList.add('dragging');
  });
  el.addEventListener('dragleave', () => el.classList.remove('dragging'));
  el.addEventListener('drop', (event) => {
    event.preventDefault();
    el.classList.remove('dragging');
    void add([...(event.dataTransfer?.files ?? [])].slice(0, max));
  });
  el.readState = () => ({ type: e.type, files });
  el.readRaw = () => JSON.stringify(files);
  el.writeRaw = (raw) => {
    files = JSON.parse(raw);
    draw();
  };
  return el;
}

export function formatSize(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** The view's state as Slack sends it: every input block, by block_id then action_id. */
export function collectValues(container) {
  const values = {};
  for (const el of container.querySelectorAll('.bk-input')) {
    if (!el.readState) continue;
    values[el.dataset.blockId] = { [el.dataset.actionId]: el.readState() };
  }
  return values;
}

/** What Slack's client checks before it sends a submission: required fields, email and number formats. */
export function clientErrors(container) {
  const errors = {};
  for (const el of container.querySelectorAll('.bk-input')) {
    const state = el.readState?.() ?? {};
    const empty =
      state.value === null ||
      state.selected_option === null ||
      state.selected_user === null ||
      state.selected_conversation === null ||
      state.selected_date_time === null ||
      [state.selected_users, state.selected_conversations, state.selected_channels].some(
        (list) => Array.isArray(list) && list.length === 0,
      ) ||
      (Array.isArray(state.files) && state.files.length === 0) ||
      (Array.isArray(state.selected_options) && state.selected_options.length === 0);
    const problem = el.slackCheck?.();
    if (problem) errors[el.dataset.blockId] = problem;
    else if (empty && el.dataset.optional !== 'true')
      errors[el.dataset.blockId] = 'Please complete this required field.';
  }
  return errors;
}

/** What was typed, by block and action id, to put back after the view is drawn again. */
export function readRaw(container) {
  const raw = {};
  for (const el of container.querySelectorAll('.bk-input'))
    if (el.readRaw) raw[`${el.dataset.blockId}/${el.dataset.actionId}`] = el.readRaw();
  return raw;
}

export function writeRaw(container, raw) {
  for (const el of container.querySelectorAll('.bk-input')) {
    const value = raw[`${el.dataset.blockId}/${el.dataset.actionId}`];
    if (value !== undefined && el.writeRaw) el.writeRaw(value);
  }
}

/**
 * <time data-ts data-format> from <!date^...>: in the reader's time zone (the acting person's users.info `tz`), as
 * Slack's client shows them, whatever zone the browser is in; the text the server wrote (the UTC fallback) stays
 * only where the page cannot format.
 */
export function formatTimes(root, timeZone) {
  for (const el of root.querySelectorAll('time[data-ts]')) {
    const date = new Date(Number(el.dataset.ts) * 1000);
    if (Number.isNaN(date.getTime())) continue;
    el.textContent = slackDate(date, el.dataset.format ?? '', timeZone);
    el.title = new Intl.DateTimeFormat('en-US', { timeZone, dateStyle: 'full', timeStyle: 'long' }).format(date);
  }
}

/** A message's time beside its author, as Slack shows it: the reader's clock. */
export function clockTime(date, timeZone) {
  return new Intl.DateTimeFormat('en-US', { timeZone, hour: 'numeric', minute: '2-digit' }).format(date);
}

/** A moment's date and clock in a time zone (hours 0 to 23). */
function wallClock(date, timeZone) {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    })
      .formatToParts(date)
      .map((part) => [part.type, Number(part.value)]),
  );
  return { year: parts.year, month: parts.month, day: parts.day, hour: parts.hour, minute: parts.minute };
}

/** The calendar day a moment falls on in a time zone, as days since 1970-01-01 (to tell today from yesterday). */
function dayNumber(date, timeZone) {
  const wall = wallClock(date, timeZone);
  return { ...wall, days: Date.UTC(wall.year, wall.month - 1, wall.day) / 86_400_000 };
}

/** The moment (ms) a date and clock in a time zone stand for: the zone's offset there, looked at twice for DST. */
function zonedMoment(year, month, day, hour, minute, timeZone) {
  const asUtc = Date.UTC(year, month - 1, day, hour, minute);
  const offsetAt = (moment) => {
    const wall = wallClock(new Date(moment), timeZone);
    return Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute) - Math.floor(moment / 60_000) * 60_000;
  };
  const guess = asUtc - offsetAt(asUtc);
  return asUtc - offsetAt(guess);
}

function slackDate(date, format, timeZone) {
  const day = dayNumber(date, timeZone);
  const relative = { 0: 'Today', [-1]: 'Yesterday', 1: 'Tomorrow' }[day.days - dayNumber(new Date(), timeZone).days];
  const formatted = (options) => new Intl.DateTimeFormat('en-US', { timeZone, ...options }).format(date);
  const long = formatted({ month: 'long', day: 'numeric', year: 'numeric' });
  const short = formatted({ month: 'short', day: 'numeric', year: 'numeric' });
  const withWeekday = formatted({ weekday: 'long', month: 'long', day: 'numeric', year: 'numeric' });
  const tokens = {
    // The reader's own day, as every other token (toISOString would give UTC's).
    date_num: `${day.year}-${String(day.month).padStart(2, '0')}-${String(day.day).padStart(2, '0')}`,
    date: long,
    date_short: short,
    date_long: withWeekday,
    date_pretty: relative ?? long,
    date_short_pretty: relative ?? short,
    date_long_pretty: relative ?? withWeekday,
    time: formatted({ hour: 'numeric', minute: '2-digit' }),
    time_secs: formatted({ hour: 'numeric', minute: '2-digit', second: '2-digit' }),
  };
  return format.replace(/\{(\w+)\}/g, (whole, token) => tokens[token] ?? whole);
}
