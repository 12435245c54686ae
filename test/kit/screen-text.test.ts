import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  ephemeralText,
  homeText,
  messageText,
  modalText,
  mrkdwnText,
  SCREEN_NOW,
  stabilize,
  withNames,
  type ScreenOptions,
} from './screen-text.js';

// A fixed clock, and the exact text (no stable placeholders), unless a test is about those.
const NOW = new Date('2026-11-27T17:14:00Z'); // a Friday
const exact: ScreenOptions = { now: NOW, stable: false };
const plain = (text: string, emoji = true) => ({ type: 'plain_text', text, emoji });
const md = (text: string) => ({ type: 'mrkdwn', text });
const option = (text: string, value: string) => ({ text: plain(text), value });

describe('mrkdwn as Slack shows it', () => {
  it('shows bold, italic, strike and code with doubled markers, so a single marker is a stray character', () => {
    expect(mrkdwnText('*bold* _italic_ ~strike~ `code`', exact)).toBe('**bold** __italic__ ~~strike~~ ``code``');
    // Slack formats only markers that touch the text at a word's edge: these stay as written.
    expect(mrkdwnText('2 * 3 * 4, snake_case_name, a*b*c, * not bold*', exact)).toBe(
      '2 * 3 * 4, snake_case_name, a*b*c, * not bold*',
    );
    expect(mrkdwnText('(*one*), *two*.', exact)).toBe('(**one**), **two**.');
  });

  it('formats nothing inside code, and shows code blocks between fences', () => {
    expect(mrkdwnText('`*not bold* &lt;x&gt;`', exact)).toBe('``*not bold* <x>``');
    expect(mrkdwnText('Rows:\n```\na,*b*\n<c>\n```\nDone', exact)).toBe('Rows:\n```\na,*b*\n<c>\n```\nDone');
  });

  it('shows quotes as bars, entities as characters and emoji shortcodes as emoji', () => {
    expect(mrkdwnText('> first\n> second\nafter', exact)).toBe('▌ first\n▌ second\nafter');
    expect(mrkdwnText('a &lt;b&gt; &amp;c &amp;lt; &quot;', exact)).toBe('a <b> &c &lt; &quot;');
    expect(mrkdwnText(':warning: :white_check_mark: :not_an_emoji:', exact)).toBe('⚠️ ✅ :not_an_emoji:');
  });

  it('shows every emoji shortcode the app writes as its emoji (the sandbox page shows the same)', () => {
    const source = readdirSync(new URL('../../src/', import.meta.url), { recursive: true, encoding: 'utf8' })
      .filter((path) => path.endsWith('.ts') && !path.startsWith('sandbox/'))
      .map((path) => readFileSync(new URL(`../../src/${path}`, import.meta.url), 'utf8'))
      .join('\n');
    const codes = [...new Set(source.match(/(?<![\w:]):[a-z0-9_+-]+:(?![\w:])/g) ?? [])];
    expect(codes.length).toBeGreaterThan(5);
    expect(codes.filter((code) => mrkdwnText(code, exact) === code)).toEqual([]);
  });

  it('shows links as their label and address', () => {
    expect(mrkdwnText('<https://mint.example/claim/1|the link> and <https://mint.example/x>', exact)).toBe(
      'the link (https://mint.example/claim/1) and https://mint.example/x',
    );
    expect(mrkdwnText('<https://a.example/?q=1&amp;r=2|A &amp; B>', exact)).toBe('A & B (https://a.example/?q=1&r=2)');
    expect(mrkdwnText('<mailto:ops@example.com|write to us>', exact)).toBe('write to us (mailto:ops@example.com)');
    expect(mrkdwnText('<not a link>', exact)).toBe('<not a link>');
  });

  it('shows people, channels and user groups by name, and one it cannot resolve as unresolved', () => {
    expect(mrkdwnText('<@U0BEN0001> and <@U0CHLOE01|chloe> in <#C0APPROVE1>, ask <!subteam^S0DELAPPR1>', exact)).toBe(
      '@Ben Okafor and @Chloé Dubois in #deletion-approvals, ask @deletion-approvers',
    );
    expect(mrkdwnText('<@U0NOBODY1> <#C0NOSUCH1|secret> <!subteam^S0NOPE|@team>', exact)).toBe(
      '@⚠unknown-user:U0NOBODY1 #⚠unknown-channel:C0NOSUCH1 @⚠unknown-group:S0NOPE',
    );
    expect(mrkdwnText('<!here> <!channel>', exact)).toBe('@here @channel');
    const directory = withNames({ users: { U0APPROV1: 'Ann Prover' }, channels: { C0APPROVE: 'approvals' } });
    expect(mrkdwnText('<@U0APPROV1> <#C0APPROVE>', { ...exact, directory })).toBe('@Ann Prover #approvals');
  });

  it("shows dates in the viewer's time zone, in Slack's formats", () => {
    const seconds = Date.parse('2026-11-28T08:05:09Z') / 1000; // Saturday
    const date = (format: string, viewer?: string) =>
      mrkdwnText(`<!date^${seconds}^${format}|2026-11-28 08:05 UTC>`, { ...exact, ...(viewer ? { viewer } : {}) });
    // Alice (the default viewer) is in Europe/Paris (UTC+1 in November), Ben in New York, Dan in Tokyo.
    expect(date('{date_short_pretty} at {time}')).toBe('Tomorrow at 9:05 AM');
    expect(date('{date_short_pretty} at {time}', 'U0BEN0001')).toBe('Tomorrow at 3:05 AM');
    expect(date('{date_short_pretty} at {time}', 'U0DAN0001')).toBe('Today at 5:05 PM'); // Saturday 02:14 there already
    expect(date('{date_num} {time_secs}')).toBe('2026-11-28 9:05:09 AM');
    expect(date('{date}')).toBe('November 28th, 2026');
    expect(date('{date_long}')).toBe('Saturday, November 28th, 2026');
    expect(date('{date_short}')).toBe('Nov 28, 2026');
    expect(date('on {date_pretty}')).toBe('on tomorrow');
    expect(date('{ago}')).toBe('in 14 hours');
    expect(date('{nonsense}')).toBe('{nonsense}');
    const yesterday = Date.parse('2026-11-26T12:00:00Z') / 1000;
    expect(mrkdwnText(`<!date^${yesterday}^{date_pretty} at {time}|x>`, exact)).toBe('Yesterday at 1:00 PM');
    expect(mrkdwnText(`<!date^${yesterday}^{ago}|x>`, exact)).toBe('1 day ago');
    expect(mrkdwnText(`<!date^${seconds}^{date_short}^https://example.com/d|x>`, exact)).toBe(
      'Nov 28, 2026 (https://example.com/d)',
    );
    expect(mrkdwnText('<!date^soon^{date}|the fallback>', exact)).toBe('the fallback');
  });

  it('refuses a viewer it does not know (their time zone decides every date)', () => {
    expect(() => mrkdwnText('x', { viewer: 'U0STRANGE' })).toThrow(/not in the directory/);
  });
});

describe('stable text for goldens', () => {
  it('shows a date near now as if now were SCREEN_NOW, its distance kept', () => {
    const inADay = Math.floor((NOW.getTime() + 86_400_000 + 40_000) / 1000); // 40 s of test time on top
    const text = `<!date^${inADay}^{date_short_pretty} at {time}|fallback>`;
    expect(mrkdwnText(text, { now: NOW })).toBe('Tomorrow at 10:30 AM'); // 2030-01-16 09:30 UTC, in Paris
    // The same screen rendered on another day reads the same.
    const later = new Date(NOW.getTime() + 3 * 86_400_000 + 7_000);
    const inADayLater = Math.floor((later.getTime() + 86_400_000) / 1000);
    expect(mrkdwnText(`<!date^${inADayLater}^{date_short_pretty} at {time}|x>`, { now: later })).toBe(
      'Tomorrow at 10:30 AM',
    );
    // Far from now, a date is what it is.
    expect(mrkdwnText('<!date^4102444800^{date_short} at {time}|x>', { now: NOW })).toBe('Jan 1, 2100 at 1:00 AM');
    expect(SCREEN_NOW.toISOString()).toBe('2030-01-15T09:30:00.000Z');
  });

  it('numbers generated ids, and moves times near now in text', () => {
    const text = [
      'DR-7KQ2ZP and DR-AB12CD and DR-7KQ2ZP again',
      'https://127.0.0.1:41873/claim/lnk_0a1b2c3d for cus_99aa88bb',
      '123e4567-e89b-12d3-a456-426614174000',
      `ts ${Math.floor(NOW.getTime() / 1000)}.000100 https://test.slack.com/archives/C0APPROVE1/p${Math.floor(NOW.getTime() / 1000)}000100`,
      'created 2026-11-27T17:14:20.512Z, expires 2026-11-28 17:14 UTC, fixed 2030-01-31T09:00:00Z',
    ].join('\n');
    expect(stabilize(text, NOW)).toBe(
      [
        'DR-‹1› and DR-‹2› and DR-‹1› again',
        'https://127.0.0.1:‹port›/claim/lnk_‹1› for cus_‹1›',
        '‹uuid 1›',
        'ts ‹ts› https://test.slack.com/archives/C0APPROVE1/p‹ts›',
        'created 2030-01-15T09:30:00.000Z, expires 2030-01-16 09:30 UTC, fixed 2030-01-31T09:00:00Z',
      ].join('\n'),
    );
  });
});

describe('surfaces', () => {
  it('renders a modal: title, inputs with label, hint, placeholder, value, optional, inline errors, buttons', () => {
    const view = {
      type: 'modal',
      title: plain('Create mint link'),
      submit: plain('Create'),
      close: plain('Cancel'),
      blocks: [
        { type: 'section', text: md('Creates a *mint link* for <@U0BEN0001>.') },
        {
          type: 'input',
          block_id: 'ids',
          label: plain('Customer IDs'),
          hint: plain('Separated by spaces.'),
          element: { type: 'plain_text_input', action_id: 'v', multiline: true, placeholder: plain('cus_1 cus_2') },
        },
        {
          type: 'input',
          block_id: 'count',
          optional: true,
          label: plain('Quantity'),
          element: { type: 'number_input', action_id: 'v', is_decimal_allowed: false, initial_value: '3' },
        },
        {
          type: 'input',
          block_id: 'url',
          optional: true,
          label: plain('Redirect'),
          element: { type: 'url_text_input', action_id: 'v' },
        },
        {
          type: 'input',
          block_id: 'email',
          label: plain('Email'),
          element: { type: 'email_text_input', action_id: 'v', initial_value: 'a@b.example' },
        },
      ],
    };
    expect(modalText(view, { ...exact, errors: { ids: 'Enter at least one customer ID.' } })).toBe(
      [
        'Modal: Create mint link',
        '━'.repeat(48),
        'Creates a **mint link** for @Ben Okafor.',
        '',
        'Customer IDs',
        '  [long text] placeholder "cus_1 cus_2"',
        '  hint: Separated by spaces.',
        '  ⚠ Enter at least one customer ID.',
        '',
        'Quantity (optional)',
        '  [number: "3"]',
        '',
        'Redirect (optional)',
        '  [url]',
        '',
        'Email',
        '  [email: "a@b.example"]',
        '━'.repeat(48),
        '[ Cancel ]  [ Create ](submit)',
        '',
      ].join('\n'),
    );
  });

  it('shows a modal without a submit button with its close button only, and errors for missing blocks', () => {
    const text = modalText(
      { title: plain('Done :tada:'), close: plain('Close'), blocks: [{ type: 'section', text: plain('*As is*') }] },
      { ...exact, errors: { gone: 'Fix it' } },
    );
    expect(text).toContain('Modal: Done 🎉');
    expect(text).toContain('\n*As is*\n'); // plain_text is never formatted: the stars are what the person sees
    expect(text).toContain('⚠error for a block the view does not have (gone): Fix it');
    expect(text.trimEnd().split('\n').at(-1)).toBe('[ Close ]');
  });

  it('lists the options of selects, checkboxes and radio buttons, the chosen ones marked', () => {
    const blocks = [
      {
        type: 'input',
        block_id: 'order',
        label: plain('Order'),
        element: {
          type: 'static_select',
          action_id: 'v',
          initial_option: option('Ascending', 'asc'),
          options: [option('Ascending', 'asc'), option('Descending', 'desc')],
        },
      },
      {
        type: 'input',
        block_id: 'kinds',
        label: plain('Kinds'),
        element: {
          type: 'checkboxes',
          action_id: 'v',
          initial_options: [option('Links', 'l')],
          options: [option('Links', 'l'), { ...option('Wallets', 'w'), description: md('_new_ ones') }],
        },
      },
      {
        type: 'input',
        block_id: 'mode',
        label: plain('Mode'),
        element: { type: 'radio_buttons', action_id: 'v', options: [option('One', '1'), option('Two', '2')] },
      },
      {
        type: 'input',
        block_id: 'who',
        label: plain('Approvers'),
        element: {
          type: 'multi_external_select',
          action_id: 'v',
          placeholder: plain('Search people or groups'),
          initial_options: [option('@deletion-approvers', 'S0DELAPPR1')],
        },
      },
    ];
    expect(modalText({ title: plain('Pick'), submit: plain('Save'), blocks }, exact)).toContain(
      [
        'Order',
        '  [select ▾ Ascending]',
        '      ● Ascending',
        '      ○ Descending',
        '',
        'Kinds',
        '  [x] Links',
        '  [ ] Wallets',
        '      __new__ ones',
        '',
        'Mode',
        '  ( ) One',
        '  ( ) Two',
        '',
        'Approvers',
        '  [search ▾ @deletion-approvers] placeholder "Search people or groups"',
      ].join('\n'),
    );
  });

  it('shows user, conversation, date and file pickers with what they hold', () => {
    const input = (block_id: string, element: Record<string, unknown>) => ({
      type: 'input',
      block_id,
      label: plain(block_id),
      element: { action_id: 'v', ...element },
    });
    const text = modalText(
      {
        title: plain('Pickers'),
        blocks: [
          input('person', { type: 'users_select', initial_user: 'U0DAN0001' }),
          input('people', { type: 'multi_users_select', initial_users: ['U0BEN0001', 'U0CHLOE01'] }),
          input('where', { type: 'conversations_select', default_to_current_conversation: true }),
          input('start', { type: 'datetimepicker', initial_date_time: Date.parse('2026-12-01T08:00:00Z') / 1000 }),
          input('file', { type: 'file_input', filetypes: ['csv'], max_files: 1 }),
          input('odd', { type: 'rich_text_input' }),
        ],
      },
      exact,
    );
    expect(text).toContain('person\n  [user ▾ @Dan Kim]');
    expect(text).toContain('people\n  [users ▾ @Ben Okafor, @Chloé Dubois]');
    expect(text).toContain('where\n  [conversation ▾] (defaults to this conversation)');
    expect(text).toContain('start\n  [date and time ▾ Dec 1, 2026 at 9:00 AM]');
    expect(text).toContain('file\n  [upload a file csv, at most 1]');
    expect(text).toContain('odd\n  ⚠unsupported element: rich_text_input');
  });

  it('renders a message: header, fields, context, divider, buttons with their style, images, accessories', () => {
    const message = {
      channel: 'C0APPROVE1',
      text: 'Deletion request DR-7KQ2ZP',
      blocks: [
        { type: 'header', text: plain('Deletion request') },
        { type: 'section', fields: [md('*Requested by*\n<@U0ALICE01>'), md('*Customers*\n3'), md('*Reason*\nGDPR')] },
        {
          type: 'section',
          text: md('Approve it?'),
          accessory: { type: 'button', action_id: 'o', text: plain('Open'), url: 'https://example.com/o' },
        },
        { type: 'divider' },
        {
          type: 'context',
          elements: [{ type: 'image', image_url: 'https://x/i.png', alt_text: 'clock' }, md('1 of 2 approvals')],
        },
        {
          type: 'actions',
          elements: [
            { type: 'button', action_id: 'a', text: plain('Approve…'), style: 'primary' },
            {
              type: 'button',
              action_id: 'r',
              text: plain('Reject…'),
              style: 'danger',
              confirm: { title: plain('Reject?'), text: plain('Sure?'), confirm: plain('Yes'), deny: plain('No') },
            },
          ],
        },
        { type: 'image', image_url: 'https://x/chart.png', alt_text: 'a chart' },
        { type: 'video', alt_text: 'v' },
      ],
    };
    expect(messageText(message, { ...exact, where: '#deletion-approvals' })).toBe(
      [
        'Message in #deletion-approvals',
        '━'.repeat(48),
        '# Deletion request',
        '',
        '▪ **Requested by**',
        '  @Alice Martin',
        '▪ **Customers**',
        '  3',
        '▪ **Reason**',
        '  GDPR',
        '',
        'Approve it?',
        '  ⤷ [ Open ] → https://example.com/o',
        '',
        '─'.repeat(32),
        '',
        '› [image: clock]  ·  1 of 2 approvals',
        '',
        '[ Approve… ](primary)  [ Reject… ](danger) (asks first: "Reject?")',
        '',
        '[image: a chart]',
        '',
        '⚠unsupported block: video',
        '',
      ].join('\n'),
    );
  });

  it("shows a message's text only when it has no blocks, and says where it went", () => {
    expect(messageText({ text: 'Hello *you*', thread_ts: '1.2' }, { ...exact, where: 'DM' })).toBe(
      `Message in DM (a reply in a thread)\n${'━'.repeat(48)}\nHello **you**\n`,
    );
    expect(messageText({ text: 'fallback', blocks: [{ type: 'section', text: md('shown') }] }, exact)).toContain(
      '\nshown\n',
    );
    expect(messageText({ response_type: 'in_channel', text: 'page' }, exact)).toContain(
      'Message (visible to everyone in the conversation)',
    );
    expect(messageText({}, exact)).toContain('⚠empty message');
  });

  it('renders ephemeral messages and App Home', () => {
    expect(ephemeralText({ text: ':no_entry: Only *approvers* may do that.', replace_original: true }, exact)).toBe(
      `Only visible to you (replaces the message it answers)\n${'━'.repeat(48)}\n⛔ Only **approvers** may do that.\n`,
    );
    const home = homeText({ type: 'home', blocks: [{ type: 'header', text: plain('Mintlink') }] }, exact);
    expect(home).toBe(`App Home\n${'━'.repeat(48)}\n# Mintlink\n`);
  });

  it('flags mrkdwn where Slack only takes plain text', () => {
    expect(modalText({ title: md('*Title*'), blocks: [] }, exact)).toContain(
      'Modal: ⚠mrkdwn where Slack wants plain_text: *Title*',
    );
  });
});
