import { describe, expect, it } from 'vitest';
import { mrkdwnHtml, plainTextHtml } from '../../sandbox/src/mrkdwn-html.js';

const directory = {
  user: (id: string) => ({ U0ANA: 'Ana Lima' })[id],
  channel: (id: string) => ({ C0GEN: 'general' })[id],
  group: (id: string) => ({ S0OPS: 'ops' })[id],
};
const html = (text: string) => mrkdwnHtml(text, directory);

describe('mrkdwn as the sandbox page shows it', () => {
  it('formats bold, italic, strike, code and code blocks as Slack does', () => {
    expect(html('*bold* _it_ ~gone~ `x < y`')).toBe('<b>bold</b> <i>it</i> <s>gone</s> <code>x &lt; y</code>');
    expect(html('```a *b*\n<c>```')).toBe('<pre class="code-block">a *b*\n&lt;c&gt;</pre>');
    expect(html('snake_case_name and 2 * 3 * 4')).toBe('snake_case_name and 2 * 3 * 4');
  });

  it('shows Slack’s entities as the characters they stand for, and never lets text become markup', () => {
    expect(html('a &lt;b&gt; &amp; c')).toBe('a &lt;b&gt; &amp; c');
    expect(html('&lt;script&gt;alert(1)&lt;/script&gt;')).toBe('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html('<javascript:alert(1)|click>')).toBe('&lt;javascript:alert(1)|click&gt;');
    expect(html('"quoted"')).toBe('&quot;quoted&quot;');
  });

  it('shows mentions by name, links with their labels, dates for the reader’s clock and emoji', () => {
    expect(html('<@U0ANA> in <#C0GEN> for <!subteam^S0OPS>')).toBe(
      '<span class="mention" data-user="U0ANA">@Ana Lima</span> in ' +
        '<span class="mention channel" data-channel="C0GEN">#general</span> for <span class="mention">@ops</span>',
    );
    expect(html('<https://x.test/?a=1&amp;b=2|the *docs*>')).toBe(
      '<a href="https://x.test/?a=1&amp;b=2" target="_blank" rel="noopener">the *docs*</a>',
    );
    expect(html('<!date^1700000000^{date_short_pretty} at {time}|Nov 14>')).toBe(
      '<time data-ts="1700000000" data-format="{date_short_pretty} at {time}">Nov 14</time>',
    );
    expect(html(':warning: done :white_check_mark:')).toBe('⚠️ done ✅');
    expect(html('<@U0NOBODY|bo>')).toContain('@bo');
  });

  it('opens the workspace’s own permalinks on the page, where the directory knows them, in the same tab', () => {
    const withPermalinks = {
      ...directory,
      permalink: (url: string) =>
        url.startsWith('https://team.slack.com/archives/') ? '/archives/C0GEN/p1' : undefined,
    };
    expect(mrkdwnHtml('<https://team.slack.com/archives/C0GEN/p1|the message>', withPermalinks)).toBe(
      '<a href="/archives/C0GEN/p1" class="permalink">the message</a>',
    );
    expect(mrkdwnHtml('<https://other.slack.com/archives/C1/p1|elsewhere>', withPermalinks)).toBe(
      '<a href="https://other.slack.com/archives/C1/p1" target="_blank" rel="noopener">elsewhere</a>',
    );
  });

  it('quotes lines that start with >, and breaks lines', () => {
    expect(html('&gt; quoted\nplain')).toBe('<blockquote>quoted</blockquote>plain');
    expect(html('one\ntwo')).toBe('one<br>two');
  });

  it('escapes plain_text and turns its emoji codes into emoji unless told not to', () => {
    expect(plainTextHtml('<b> :rocket:')).toBe('&lt;b&gt; 🚀');
    expect(plainTextHtml(':rocket:', false)).toBe(':rocket:');
  });
});
