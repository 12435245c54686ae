import { describe, expect, it } from 'vitest';
import {
  CommandRegistry,
  splitCommandText,
  type Subcommand,
} from '../../../../src/platform/slack/commands/command-registry.js';
import { unknownSubcommandMessage, usageMessage } from '../../../../src/platform/slack/commands/usage-message.js';

const sub = (name: string, extra: Partial<Subcommand> = {}): Subcommand => ({
  name,
  description: `does ${name}`,
  run: async () => undefined,
  ...extra,
});

describe('CommandRegistry', () => {
  it('finds subcommands by name or alias, ignoring case', () => {
    const registry = new CommandRegistry()
      .register(sub('delete', { aliases: ['delete-customers'] }))
      .register(sub('help'), { default: true });
    expect(registry.find('DELETE')?.name).toBe('delete');
    expect(registry.find('delete-customers')?.name).toBe('delete');
    expect(registry.find('nope')).toBeUndefined();
    expect(registry.defaultSubcommand?.name).toBe('help');
  });

  it('refuses a name registered twice', () => {
    const registry = new CommandRegistry().register(sub('link'));
    expect(() => registry.register(sub('other', { aliases: ['link'] }))).toThrow('registered twice');
  });

  it('generates help from what is registered, in order, with arguments and aliases', () => {
    const registry = new CommandRegistry()
      .register(sub('link', { arguments: '[nftId]' }), { default: true })
      .register(sub('delete', { aliases: ['delete-customers'], arguments: '[ids...]' }));
    const help = usageMessage(registry, '/mintlink');
    expect(help.text).toBe(
      '/mintlink usage:\n• `/mintlink link [nftId]`: does link\n• `/mintlink delete [ids...]` (also `delete-customers`): does delete',
    );
    expect(JSON.stringify(help.blocks)).toContain('`/mintlink` alone does `/mintlink link`.');
    expect(unknownSubcommandMessage(registry, '/mintlink-dev', 'x'.repeat(500)).text.length).toBeLessThan(400);
  });

  it('escapes usages and the unknown word in the notification text as in the blocks', () => {
    const registry = new CommandRegistry().register(sub('templates', { arguments: '<contractId> [limit]' }));
    const help = usageMessage(registry, '/mintlink');
    expect(help.text).toBe('/mintlink usage:\n• `/mintlink templates &lt;contractId&gt; [limit]`: does templates');
    expect(JSON.stringify(help.blocks)).toContain('`/mintlink templates &lt;contractId&gt; [limit]`');

    const unknown = unknownSubcommandMessage(registry, '/mintlink', '<!channel>&`x`*');
    expect(unknown.text).toMatch(/^\/mintlink has no subcommand "&lt;!channel&gt;&amp;`x`\*"\. \/mintlink usage:/);
    expect(JSON.stringify(unknown.blocks)).toContain("has no subcommand `&lt;!channel&gt;&amp;'x'*`.");
    for (const text of [unknown.text, JSON.stringify(unknown.blocks)]) {
      expect(text).not.toMatch(/[<>]/);
      expect(text.replace(/&(amp|lt|gt);/g, '')).not.toContain('&');
    }
    expect(unknownSubcommandMessage(registry, '/mintlink', `${'x'.repeat(59)}😀😀`).text).toContain(
      `"${'x'.repeat(59)}…"`,
    );
  });
});

describe('splitCommandText', () => {
  it.each([
    ['', { word: '', rest: '', args: [] }],
    ['  help  ', { word: 'help', rest: '', args: [] }],
    ['templates  c1 10\tasc', { word: 'templates', rest: 'c1 10\tasc', args: ['c1', '10', 'asc'] }],
    ['delete a,b\nc', { word: 'delete', rest: 'a,b\nc', args: ['a,b', 'c'] }],
  ])('splits %j', (text, expected) => {
    expect(splitCommandText(text)).toEqual(expected);
  });
});
