// The sandbox's page: a Slack workspace (channels, the app's DM and Home tab, modals, menus, threads, a
// Workflow Builder panel), drawn from the state the sandbox keeps for the person chosen in the switcher.
// Live: the server says "change" over Server-Sent Events and the page fetches that person's state again.

import {
  clientErrors,
  clockTime,
  collectValues,
  formatSize,
  formatTimes,
  h,
  readRaw,
  renderBlocks,
  textNode,
  writeRaw,
} from './blocks.js';

const params = new URLSearchParams(location.search);
const boot = await (await fetch('/api/bootstrap')).json();
const ui = {
  me: params.get('as') ?? localStorage.getItem('sandbox.as') ?? boot.people[0].id,
  /** { kind: 'channel', id } | { kind: 'app', tab: 'home' | 'messages' | 'about' } | { kind: 'workflows' } */
  place: { kind: 'channel', id: boot.channels[0].id },
  thread: undefined,
  state: undefined,
  modalKey: '',
  dismissedViolations: new Set(),
  workflowStep: boot.steps[0]?.callbackId,
  workflowTyped: {},
};
if (!boot.people.some((p) => p.id === ui.me)) ui.me = boot.people[0].id;

/** A permalink of the workspace, as the page's path: /archives/<conversation>/p<the message's ts without its dot>. */
function permalinkTarget(path) {
  const found = /^\/archives\/([A-Z0-9]+)\/p(\d{10})(\d{6})$/.exec(path);
  return found ? { conversation: found[1], ts: `${found[2]}.${found[3]}` } : undefined;
}

/** Shows the message a permalink points to, in its conversation, as Slack's client does with its own links. */
function openPermalink(target) {
  if (boot.channels.some((c) => c.id === target.conversation)) ui.place = { kind: 'channel', id: target.conversation };
  else if (target.conversation.startsWith('D')) ui.place = { kind: 'app', tab: 'messages' };
  else return;
  ui.thread = undefined;
  ui.focusTs = target.ts;
  ui.scrolledTo = undefined;
}

const opened = permalinkTarget(location.pathname);
if (opened) openPermalink(opened);

const $ = (selector) => document.querySelector(selector);
const person = (id) => boot.people.find((p) => p.id === id);

// ---- Talking to the sandbox ----------------------------------------------------------------------------

/** The sandbox takes actions only as JSON with this header, which a page of another site cannot send unasked. */
const OWN_PAGE = { 'content-type': 'application/json', 'x-sandbox': '1' };

async function act(action) {
  const response = await fetch('/api/act', {
    method: 'POST',
    headers: OWN_PAGE,
    body: JSON.stringify({ as: ui.me, ...action }),
  });
  const result = await response.json();
  if (!result.ok && result.error && !['timeout', 'status', 'network'].includes(result.error)) toast(result.error);
  return result;
}

async function upload(file) {
  const response = await fetch('/api/upload', {
    method: 'POST',
    headers: OWN_PAGE,
    body: JSON.stringify({ as: ui.me, name: file.name, content: await base64(file) }),
  });
  const result = await response.json();
  if (!response.ok) throw new Error(result.error ?? 'upload failed');
  return result.file;
}

/**
 * The options of a select with an external data source: the sandbox asks the app (a block_suggestion) with
 * the view's values as they are now. A failure is shown in the menu, as Slack shows it, not as a toast.
 */
async function suggest(viewId, container, blockId, actionId, value) {
  try {
    const response = await fetch('/api/act', {
      method: 'POST',
      headers: OWN_PAGE,
      body: JSON.stringify({
        as: ui.me,
        type: 'suggest',
        viewId,
        blockId,
        actionId,
        value,
        values: container ? collectValues(container) : {},
      }),
    });
    return await response.json();
  } catch {
    return { ok: false, error: 'network' };
  }
}

/** A file's bytes in base64 (a data: URL without its prefix). */
function base64(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error ?? new Error('the file could not be read'));
    reader.readAsDataURL(file);
  });
}

let fetching = false;
let again = false;
async function refresh() {
  if (fetching) return void (again = true);
  fetching = true;
  try {
    const state = await (await fetch(`/api/state?as=${encodeURIComponent(ui.me)}`)).json();
    ui.state = state;
    render();
  } finally {
    fetching = false;
    if (again) {
      again = false;
      void refresh();
    }
  }
}

new EventSource('/api/events').addEventListener('change', () => void refresh());

// ---- Layout ---------------------------------------------------------------------------------------------

function render() {
  const state = ui.state;
  if (!state) return;
  renderSidebar();
  renderMain(state);
  renderThread(state);
  renderModal(state);
  renderNotices(state);
  renderViolations(state);
  formatTimes(document.body, person(ui.me).tz);
  document.body.dataset.version = String(state.version);
}

function renderSidebar() {
  const who = $('#who');
  if (!who.options.length)
    for (const p of boot.people) who.append(h('option', { value: p.id }, `${p.name} — ${p.role}`));
  who.value = ui.me;
  $('#me').replaceChildren(
    avatar(person(ui.me)),
    h(
      'span',
      { class: 'who' },
      h('span', {}, person(ui.me).name),
      h('span', { class: 'rights' }, person(ui.me).rights),
    ),
  );
  const item = (label, active, onclick, extra) =>
    h('li', {}, h('button', { type: 'button', class: `nav-item${active ? ' active' : ''}`, onclick }, label, extra));
  $('#channel-list').replaceChildren(
    ...boot.channels.map((c) =>
      item(
        h('span', {}, h('span', { class: 'hash' }, '#'), c.name),
        ui.place.kind === 'channel' && ui.place.id === c.id,
        () => go({ kind: 'channel', id: c.id }),
      ),
    ),
  );
  $('#app-list').replaceChildren(
    item(h('span', {}, h('span', { class: 'app-icon' }, 'M'), boot.appName), ui.place.kind === 'app', () =>
      go({ kind: 'app', tab: 'home' }),
    ),
  );
  $('#tool-list').replaceChildren(
    item(h('span', {}, '⚙︎ Workflow Builder'), ui.place.kind === 'workflows', () => go({ kind: 'workflows' })),
  );
}

function go(place) {
  ui.place = place;
  ui.thread = undefined;
  ui.focusTs = undefined;
  if (location.pathname !== '/') history.pushState(null, '', `/${location.search}`);
  if (place.kind === 'app') void act({ type: 'openHome', tab: place.tab === 'home' ? 'home' : 'messages' });
  render();
}

function conversation(id) {
  return ui.state.conversations.find((c) => c.id === id);
}

function renderMain(state) {
  const header = $('#main-header');
  const content = $('#content');
  const composer = $('#composer');
  const place = ui.place;
  content.dataset.place = place.kind === 'app' ? `app-${place.tab}` : place.kind;
  if (place.kind === 'channel') {
    const c = conversation(place.id);
    header.replaceChildren(h('h1', {}, `# ${c.name}`), h('span', { class: 'topic' }, c.topic));
    content.replaceChildren(messageList(c));
    composer.hidden = false;
    $('#composer-text').placeholder = `Message #${c.name}`;
  } else if (place.kind === 'app') {
    header.replaceChildren(
      h('h1', {}, h('span', { class: 'app-icon big' }, 'M'), boot.appName),
      h(
        'nav',
        { class: 'tabs', role: 'tablist' },
        ['home', 'messages', 'about'].map((tab) =>
          h(
            'button',
            {
              type: 'button',
              role: 'tab',
              class: `tab${place.tab === tab ? ' active' : ''}`,
              onclick: () => go({ kind: 'app', tab }),
            },
            tab[0].toUpperCase() + tab.slice(1),
          ),
        ),
      ),
    );
    if (place.tab === 'home') content.replaceChildren(homeTab(state));
    else if (place.tab === 'messages') content.replaceChildren(messageList(conversation(state.dm)));
    else content.replaceChildren(aboutTab());
    composer.hidden = place.tab !== 'messages';
    $('#composer-text').placeholder = `Message ${boot.appName} (slash commands only)`;
  } else {
    header.replaceChildren(
      h('h1', {}, 'Workflow Builder'),
      h('span', { class: 'topic' }, `Run ${boot.appName}'s custom steps`),
    );
    content.replaceChildren(workflowPanel(state));
    composer.hidden = true;
  }
}

function avatar(p, isApp) {
  if (isApp || !p) return h('span', { class: 'avatar app' }, 'M');
  const letters = p.name
    .split(' ')
    .map((w) => w[0])
    .join('')
    .slice(0, 2);
  return h('span', { class: 'avatar', style: `background:${p.color}` }, letters);
}

// ---- Messages -------------------------------------------------------------------------------------------

function messageList(c) {
  const list = h('div', { class: 'messages', 'data-conversation': c.id });
  if (c.messages.length === 0)
    list.append(
      h(
        'div',
        { class: 'empty' },
        c.kind === 'app' ? `This is your direct message with ${boot.appName}.` : 'No messages yet.',
      ),
    );
  for (const m of c.messages) list.append(messageRow(m, c, false));
  // A permalink's message stays marked until the person goes elsewhere; it is scrolled to once.
  const focused = ui.focusTs && [...list.children].find((row) => row.dataset.ts === ui.focusTs);
  focused?.classList.add('focused');
  const scrollToFocused = focused && ui.scrolledTo !== ui.focusTs;
  if (scrollToFocused) ui.scrolledTo = ui.focusTs;
  requestAnimationFrame(() => {
    if (scrollToFocused) return focused.scrollIntoView({ block: 'center' });
    const scroller = $('#content');
    scroller.scrollTop = scroller.scrollHeight;
  });
  return list;
}

function messageRow(m, c, inThread) {
  const author = person(m.from);
  const time = clockTime(new Date(m.at), person(ui.me).tz);
  const body = m.blocks
    ? renderBlocks(
        m.blocks,
        blockCtx('message', (action) => act({ type: 'messageAction', channel: m.channel, ts: m.ts, action })),
      )
    : h('div', { class: 'text', html: m.html });
  const row = h(
    'div',
    { class: `message${m.ephemeral ? ' ephemeral' : ''}`, 'data-ts': m.ts },
    avatar(author, m.isApp),
    h(
      'div',
      { class: 'message-body' },
      h(
        'div',
        { class: 'message-meta' },
        h('strong', {}, m.fromName),
        m.isApp && m.from !== 'USLACKBOT' ? h('span', { class: 'badge' }, 'APP') : null,
        h('span', { class: 'time' }, time),
        m.edited ? h('span', { class: 'edited' }, '(edited)') : null,
      ),
      m.ephemeral ? h('div', { class: 'only-you' }, '👁 Only visible to you') : null,
      body,
      m.file ? fileCard(m.file) : null,
      !inThread && m.replies?.length
        ? h(
            'button',
            { type: 'button', class: 'replies', onclick: () => openThread(c.id, m.ts) },
            `${m.replies.length} ${m.replies.length === 1 ? 'reply' : 'replies'}`,
          )
        : null,
    ),
    inThread || m.ephemeral ? null : messageHoverActions(m, c),
  );
  return row;
}

function fileCard(file) {
  return h(
    'div',
    { class: 'file-card' },
    h('span', { class: 'file-icon' }, file.name.endsWith('.csv') ? 'CSV' : 'FILE'),
    h(
      'div',
      {},
      h('div', { class: 'file-title' }, file.title),
      h('div', { class: 'file-size' }, `${formatSize(file.size)} · ${file.name}`),
    ),
    h('a', { class: 'bk-button', href: file.url, download: file.name }, 'Download'),
  );
}

function messageHoverActions(m, c) {
  return h(
    'div',
    { class: 'hover-actions' },
    h('button', { type: 'button', title: 'Reply in thread', onclick: () => openThread(c.id, m.ts) }, '💬'),
    h(
      'button',
      {
        type: 'button',
        title: 'More actions',
        'aria-label': 'More actions',
        class: 'more-actions',
        onclick: (event) => openMenu(event.currentTarget, messageMenu(m, c)),
      },
      '⋮',
    ),
  );
}

function messageMenu(m, c) {
  const shortcuts = boot.shortcuts.filter((s) => s.type === 'message');
  return [
    { label: 'Reply in thread', run: () => openThread(c.id, m.ts) },
    { separator: true },
    ...shortcuts.map((s) => ({
      label: s.name,
      detail: boot.appName,
      run: () => act({ type: 'messageShortcut', callbackId: s.callbackId, channel: c.id, ts: m.ts }),
    })),
  ];
}

function openThread(channel, ts) {
  ui.thread = { channel, ts };
  render();
}

function renderThread(state) {
  const panel = $('#thread');
  const c = ui.thread && state.conversations.find((x) => x.id === ui.thread.channel);
  const parent = c?.messages.find((m) => m.ts === ui.thread.ts);
  panel.hidden = !parent;
  if (!parent) return;
  const reply = h('textarea', { rows: 2, placeholder: 'Reply…', 'aria-label': 'Reply in thread' });
  const send = () => {
    const text = reply.value;
    if (!text.trim()) return;
    reply.value = '';
    void act({ type: 'message', channel: c.id, text, threadTs: parent.ts });
  };
  reply.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      send();
    }
  });
  panel.replaceChildren(
    h(
      'header',
      {},
      h('h2', {}, 'Thread'),
      h('span', { class: 'topic' }, c.kind === 'channel' ? `# ${c.name}` : boot.appName),
      h(
        'button',
        {
          type: 'button',
          class: 'close',
          'aria-label': 'Close thread',
          onclick: () => ((ui.thread = undefined), render()),
        },
        '×',
      ),
    ),
    h(
      'div',
      { class: 'thread-messages' },
      messageRow(parent, c, true),
      h(
        'div',
        { class: 'thread-divider' },
        `${parent.replies.length} ${parent.replies.length === 1 ? 'reply' : 'replies'}`,
      ),
      parent.replies.map((r) => messageRow(r, c, true)),
    ),
    h('div', { class: 'thread-composer' }, reply),
  );
}

// ---- App Home and About ---------------------------------------------------------------------------------

function homeTab(state) {
  if (!state.home) return h('div', { class: 'empty' }, 'Opening the Home tab…');
  const view = state.home.view;
  return h(
    'div',
    { class: 'home', 'data-view-id': state.home.id },
    renderBlocks(
      view.blocks,
      blockCtx(
        'home',
        (action) => {
          const container = $('.home');
          return act({ type: 'viewAction', viewId: state.home.id, action, values: collectValues(container) });
        },
        (blockId, actionId, value) => suggest(state.home.id, $('.home'), blockId, actionId, value),
      ),
    ),
  );
}

function aboutTab() {
  return h(
    'div',
    { class: 'about' },
    h('h2', {}, boot.appName),
    h('p', {}, boot.commandDescription),
    h('h3', {}, 'Slash command'),
    h('pre', { class: 'code-block' }, `/mintlink ${boot.commandUsage}`),
    h('h3', {}, 'Shortcuts'),
    h(
      'ul',
      {},
      boot.shortcuts.map((s) => h('li', {}, h('strong', {}, s.name), ` (${s.type}) — ${s.description}`)),
    ),
  );
}

// ---- Workflow Builder -----------------------------------------------------------------------------------

function workflowPanel(state) {
  const step = boot.steps.find((s) => s.callbackId === ui.workflowStep) ?? boot.steps[0];
  const fields = step.inputs.map((input) => stepField(input));
  // What was typed stays when the panel is drawn again (a run's progress redraws it).
  const typed = (ui.workflowTyped[step.callbackId] ??= {});
  const form = h(
    'form',
    {
      class: 'workflow-form',
      oninput: (event) => {
        const el = event.target;
        typed[el.name] = el.type === 'checkbox' ? el.checked : el.value;
      },
      onsubmit: (event) => {
        event.preventDefault();
        const inputs = {};
        for (const input of step.inputs) {
          const el = form.querySelector(`[name="${input.name}"]`);
          if (el) inputs[input.name] = el.type === 'checkbox' ? el.checked : el.value;
        }
        void act({ type: 'runStep', callbackId: step.callbackId, inputs });
      },
    },
    h('h2', {}, step.title),
    h('p', { class: 'muted' }, step.description),
    fields,
    h('button', { type: 'submit', class: 'bk-button primary' }, '▶ Run this step'),
  );
  for (const [name, value] of Object.entries(typed)) {
    const el = form.querySelector(`[name="${name}"]`);
    if (el && el.type === 'checkbox') el.checked = value;
    else if (el) el.value = value;
  }
  return h(
    'div',
    { class: 'workflow' },
    h(
      'div',
      { class: 'workflow-steps' },
      h('h3', {}, 'Steps from ', boot.appName),
      boot.steps.map((s) =>
        h(
          'button',
          {
            type: 'button',
            class: `step-card${s.callbackId === step.callbackId ? ' active' : ''}`,
            onclick: () => ((ui.workflowStep = s.callbackId), render()),
          },
          h('strong', {}, s.title),
          h('span', {}, s.description),
        ),
      ),
    ),
    h('div', { class: 'workflow-main' }, form),
    h('div', { class: 'workflow-runs' }, h('h3', {}, 'Runs'), runList(state)),
  );
}

function stepField(input) {
  const label = h(
    'label',
    { class: 'bk-label', for: `step-${input.name}` },
    input.title,
    input.required ? null : h('span', { class: 'optional' }, ' (optional)'),
  );
  const hint = input.description ? h('div', { class: 'bk-hint' }, input.description) : null;
  const id = `step-${input.name}`;
  let field;
  if (input.type === 'slack#/types/user_context')
    return h(
      'div',
      { class: 'bk-input-block' },
      label,
      h('div', { class: 'set-by-slack' }, `Set by Slack: the person who runs the workflow (${person(ui.me).name})`),
    );
  if (input.type === 'boolean')
    field = h('input', { type: 'checkbox', id, name: input.name, checked: input.default !== false });
  else if (input.enum)
    // As Workflow Builder shows it: the manifest's default chosen; an optional input without one starts empty.
    field = h('select', { id, name: input.name }, [
      ...(input.required || input.default !== undefined ? [] : [h('option', { value: '' }, '')]),
      ...input.enum.map((v) => h('option', { value: v, selected: v === input.default }, input.choiceTitles?.[v] ?? v)),
    ]);
  else if (input.type === 'integer') field = h('input', { type: 'number', id, name: input.name, step: 1 });
  else if (input.type === 'slack#/types/timestamp')
    field = h('input', { type: 'datetime-local', id, name: input.name });
  else if (input.type === 'array')
    field = h('textarea', { id, name: input.name, rows: 2, placeholder: 'One per line, or separated by commas' });
  else field = h('input', { type: 'text', id, name: input.name });
  return h('div', { class: 'bk-input-block' }, label, field, hint);
}

function runList(state) {
  if (state.runs.length === 0) return h('div', { class: 'empty' }, 'No run yet.');
  return h(
    'div',
    { class: 'runs' },
    state.runs.map((run) =>
      h(
        'div',
        { class: `run ${run.state}`, 'data-execution': run.executionId },
        h(
          'div',
          { class: 'run-head' },
          h('strong', {}, run.title),
          h(
            'span',
            { class: `run-state ${run.state}` },
            run.state === 'running' ? '⏳ Running' : run.state === 'completed' ? '✅ Completed' : '❌ Failed',
          ),
          h('span', { class: 'time' }, clockTime(new Date(run.startedAt), person(ui.me).tz)),
        ),
        run.outputs
          ? h(
              'table',
              { class: 'outputs' },
              Object.entries(run.outputs).map(([k, v]) =>
                h('tr', {}, h('th', {}, k), h('td', {}, typeof v === 'string' ? v : JSON.stringify(v))),
              ),
            )
          : null,
        run.error ? h('div', { class: 'run-error' }, run.error) : null,
      ),
    ),
  );
}

// ---- Modals ---------------------------------------------------------------------------------------------

function renderModal(state) {
  const layer = $('#modal-layer');
  const stack = state.modals;
  const top = stack.at(-1);
  const key = top ? `${stack.length}:${top.viewId}:${top.hash}:${JSON.stringify(top.errors)}:${top.busy}` : '';
  if (key === ui.modalKey) return;
  const previous = layer.querySelector('.modal');
  const kept = previous && top && previous.dataset.viewId === top.viewId ? readRaw(previous) : undefined;
  ui.modalKey = key;
  layer.hidden = !top;
  if (!top) return void layer.replaceChildren();
  const view = top.view;
  const body = h('div', { class: 'modal-body' });
  const ctx = blockCtx(
    'modal',
    (action) => act({ type: 'viewAction', viewId: top.viewId, action, values: collectValues(body) }),
    (blockId, actionId, value) => suggest(top.viewId, body, blockId, actionId, value),
  );
  ctx.errors = top.errors;
  body.append(renderBlocks(view.blocks, ctx));
  if (kept) writeRaw(body, kept);
  // As Slack does: the first field with an error is brought into view.
  requestAnimationFrame(() => body.querySelector('.has-error')?.scrollIntoView({ block: 'center' }));
  const submit = async () => {
    if (body.querySelector('[data-uploading]')) return toast('Wait for the file to finish uploading.');
    const errors = clientErrors(body);
    if (Object.keys(errors).length > 0) return showClientErrors(body, errors);
    await act({ type: 'submit', viewId: top.viewId, values: collectValues(body) });
  };
  const close = () => act({ type: 'close', viewId: top.viewId });
  const modal = h(
    'div',
    {
      class: `modal${top.busy ? ' busy' : ''}`,
      role: 'dialog',
      'aria-modal': 'true',
      'data-view-id': top.viewId,
      'data-callback-id': view.callback_id ?? '',
    },
    h(
      'header',
      {},
      stack.length > 1
        ? h('button', { type: 'button', class: 'back', 'aria-label': 'Back', onclick: close }, '←')
        : null,
      h('span', { class: 'app-icon' }, 'M'),
      h('h2', {}, textNode(view.title)),
      h('button', { type: 'button', class: 'close', 'aria-label': 'Close', onclick: close }, '×'),
    ),
    body,
    h(
      'footer',
      {},
      h(
        'button',
        { type: 'button', class: 'bk-button', onclick: close },
        view.close ? textNode(view.close) : stack.length > 1 ? 'Back' : 'Cancel',
      ),
      view.submit
        ? h(
            'button',
            { type: 'button', class: 'bk-button primary submit', disabled: top.busy, onclick: submit },
            top.busy ? '…' : textNode(view.submit),
          )
        : null,
    ),
  );
  const shadows = stack.slice(0, -1).map((_, i) =>
    h('div', {
      class: 'modal-shadow',
      style: `transform: translate(${-(stack.length - 1 - i) * 10}px, ${-(stack.length - 1 - i) * 10}px)`,
    }),
  );
  layer.replaceChildren(h('div', { class: 'modal-stack' }, shadows, modal));
}

function showClientErrors(body, errors) {
  for (const block of body.querySelectorAll('.bk-input-block')) {
    block.querySelector('.bk-error.client')?.remove();
    const error = errors[block.dataset.blockId];
    block.classList.toggle('has-error', Boolean(error));
    if (error) block.querySelector('.bk-input').after(h('div', { class: 'bk-error client', role: 'alert' }, error));
  }
}

function blockCtx(surface, onAction, suggestOptions = async () => ({ ok: false, error: 'no options here' })) {
  const dm = { id: ui.state.dm, name: boot.appName, kind: 'app' };
  return {
    surface,
    onAction,
    suggest: suggestOptions,
    upload,
    me: ui.me,
    /** The person's time zone: a datetimepicker shows and reads its date and time in it, as Slack does. */
    timeZone: person(ui.me).tz,
    people: boot.people,
    conversations: [...boot.channels.map((c) => ({ ...c, kind: 'channel' })), dm],
    currentConversation: ui.place.kind === 'channel' ? ui.place.id : ui.place.kind === 'app' ? ui.state.dm : undefined,
  };
}

// ---- Menus, notices, violations ---------------------------------------------------------------------------

function openMenu(anchor, items) {
  const menu = $('#menu');
  menu.replaceChildren(
    ...items.map((item) =>
      item.separator
        ? h('div', { class: 'menu-separator' })
        : h(
            'button',
            {
              type: 'button',
              class: 'menu-item',
              role: 'menuitem',
              onclick: () => {
                menu.hidden = true;
                item.run();
              },
            },
            h('span', {}, item.label),
            item.detail ? h('span', { class: 'menu-detail' }, item.detail) : null,
          ),
    ),
  );
  menu.hidden = false;
  const rect = anchor.getBoundingClientRect();
  const top = Math.min(rect.bottom + 4, window.innerHeight - menu.offsetHeight - 8);
  menu.style.top = `${Math.max(8, top < rect.bottom ? rect.top - menu.offsetHeight - 4 : top)}px`;
  menu.style.left = `${Math.max(8, Math.min(rect.left, window.innerWidth - menu.offsetWidth - 8))}px`;
}

document.addEventListener('click', (event) => {
  const permalink = event.target.closest('a.permalink');
  const target = permalink && permalinkTarget(permalink.getAttribute('href'));
  if (target && !event.ctrlKey && !event.metaKey && !event.shiftKey) {
    event.preventDefault();
    history.pushState(null, '', `${permalink.getAttribute('href')}${location.search}`);
    openPermalink(target);
    if (ui.place.kind === 'app') void act({ type: 'openHome', tab: 'messages' });
    render();
  }
  const menu = $('#menu');
  if (!menu.hidden && !menu.contains(event.target) && !event.target.closest('.more-actions, #shortcuts-button'))
    menu.hidden = true;
});

function renderNotices(state) {
  $('#toasts').replaceChildren(
    ...state.notices.map((n) =>
      h(
        'div',
        { class: 'toast', role: 'alert' },
        h('span', {}, n.text),
        h(
          'button',
          { type: 'button', 'aria-label': 'Dismiss', onclick: () => act({ type: 'dismiss', noticeId: n.id }) },
          '×',
        ),
      ),
    ),
  );
}

function toast(text) {
  const el = h('div', { class: 'toast local', role: 'alert' }, h('span', {}, text));
  $('#toasts').append(el);
  setTimeout(() => el.remove(), 6000);
}

function renderViolations(state) {
  const shown = state.violations.filter((v) => !ui.dismissedViolations.has(v.id));
  const banner = $('#violations');
  banner.hidden = shown.length === 0;
  banner.replaceChildren(
    h('strong', {}, `⚠ Slack rule broken (${shown.length})`),
    h(
      'ul',
      {},
      shown.slice(-4).map((v) => h('li', {}, h('span', { class: 'rule' }, v.rule), ' ', v.detail)),
    ),
    h(
      'button',
      { type: 'button', onclick: () => (shown.forEach((v) => ui.dismissedViolations.add(v.id)), render()) },
      'Hide',
    ),
  );
}

// ---- Composer and shortcuts -----------------------------------------------------------------------------

function currentConversationId() {
  if (ui.place.kind === 'channel') return ui.place.id;
  if (ui.place.kind === 'app') return ui.state.dm;
  return undefined;
}

$('#composer').addEventListener('submit', (event) => {
  event.preventDefault();
  const input = $('#composer-text');
  const text = input.value;
  const channel = currentConversationId();
  if (!text.trim() || !channel) return;
  if (ui.place.kind === 'app' && !text.trim().startsWith('/')) {
    toast(`Sending messages to ${boot.appName} has been turned off; slash commands work.`);
    return;
  }
  input.value = '';
  $('#command-hint').hidden = true;
  void act({ type: 'message', channel, text });
});

$('#composer-text').addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey) {
    event.preventDefault();
    $('#composer').requestSubmit();
  }
});

$('#composer-text').addEventListener('input', (event) => {
  const value = event.target.value;
  const hint = $('#command-hint');
  hint.hidden = !(value.startsWith('/') && '/mintlink'.startsWith(value.split(' ')[0]));
  hint.replaceChildren(
    h('strong', {}, '/mintlink'),
    ' ',
    h('span', { class: 'muted' }, boot.commandUsage),
    h('div', { class: 'menu-detail' }, boot.commandDescription),
  );
});

$('#shortcuts-button').addEventListener('click', (event) => {
  openMenu(
    event.currentTarget,
    boot.shortcuts
      .filter((s) => s.type === 'global')
      .map((s) => ({
        label: s.name,
        detail: boot.appName,
        run: () => act({ type: 'shortcut', callbackId: s.callbackId }),
      })),
  );
});

$('#who').addEventListener('change', (event) => {
  ui.me = event.target.value;
  localStorage.setItem('sandbox.as', ui.me);
  const url = new URL(location.href);
  url.searchParams.set('as', ui.me);
  history.replaceState(null, '', url);
  ui.modalKey = undefined; // draw (or hide) the new person's modals whatever they are
  ui.thread = undefined;
  if (ui.place.kind === 'app') void act({ type: 'openHome', tab: ui.place.tab === 'home' ? 'home' : 'messages' });
  void refresh();
});

await refresh();
document.body.dataset.ready = 'true';
