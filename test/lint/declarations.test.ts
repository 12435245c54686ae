import { readdirSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { type Declarations, type Declared, idOf } from '../../src/platform/slack/pipeline/declarations.js';
import { declarationsOf } from '../../src/platform/slack/pipeline/listen.js';
import { COMMANDS } from '../../src/platform/slack/commands/mintlink-command.js';
import { useFakes, useListenerApp } from '../kit/fakes.js';

/*
 * One declaration per action: every capability declares what it answers in its `actions.ts`, and its register
 * gives each entry its listener (listen.ts refuses an entry without one, or one without an entry, at start).
 * What is left to check is that every capability's declaration is registered at all, that nothing outside the
 * declarations is, and that manifest.yml offers Slack exactly the shortcuts, steps and commands declared.
 */
const root = new URL('../../', import.meta.url);
const manifest = parse(readFileSync(new URL('manifest.yml', root), 'utf8')) as {
  features: {
    slash_commands: Array<{ command: string }>;
    shortcuts: Array<{ callback_id: string; type: 'global' | 'message' }>;
  };
  functions: Record<string, unknown>;
};

function isDeclared(value: unknown): value is Declared<Declarations> {
  return typeof value === 'object' && value !== null && 'capability' in value && typeof value.capability === 'string';
}

/** Every capability's declarations, read from src/capabilities/<capability>/actions.ts. */
async function capabilityDeclarations(): Promise<Array<Declared<Declarations>>> {
  const folder = new URL('src/capabilities/', root);
  const found: Array<Declared<Declarations>> = [];
  for (const capability of readdirSync(folder)) {
    const files = readdirSync(new URL(`${capability}/`, folder));
    expect(files, `src/capabilities/${capability}/ declares what it answers in actions.ts`).toContain('actions.ts');
    const module: Record<string, unknown> = await import(new URL(`${capability}/actions.ts`, folder).href);
    found.push(...Object.values(module).filter(isDeclared));
  }
  return found;
}

const ids = (declarations: readonly Declarations[], kind: keyof Declarations) =>
  declarations.flatMap((d) => Object.values(d[kind] ?? {}).map((entry) => idOf(entry))).sort();

describe('the declarations of what the app answers', () => {
  const fakes = useFakes();
  const single = useListenerApp(fakes);

  it('are each registered, and nothing else is', async () => {
    const declared = [...(await capabilityDeclarations()), COMMANDS];
    const registered = declarationsOf(single.app.boltApp);
    expect(registered.map((d) => d.capability).sort()).toEqual(declared.map((d) => d.capability).sort());
    expect(new Set(registered)).toEqual(new Set(declared));
  });

  it('are what manifest.yml offers Slack: its shortcuts, workflow steps and slash commands', async () => {
    const declared = [...(await capabilityDeclarations()), COMMANDS];
    const shortcuts = (type: 'global' | 'message') =>
      manifest.features.shortcuts
        .filter((s) => s.type === type)
        .map((s) => s.callback_id)
        .sort();
    expect(shortcuts('global')).toEqual(ids(declared, 'shortcuts'));
    expect(shortcuts('message')).toEqual(ids(declared, 'messageShortcuts'));
    expect(Object.keys(manifest.functions).sort()).toEqual(ids(declared, 'steps'));
    expect(manifest.features.slash_commands.map((c) => c.command).sort()).toEqual(ids(declared, 'commands'));
  });

  it('give every action id and callback id to one entry only', async () => {
    const declared = [...(await capabilityDeclarations()), COMMANDS];
    for (const kind of ['buttons', 'forms', 'shortcuts', 'options', 'steps'] as const) {
      const all = ids(declared, kind);
      expect(all, kind).toEqual([...new Set(all)]);
    }
  });
});

/** Every src/ file's text but the declarations' own (actions.ts), by path. */
function sourcesBesidesDeclarations(): Array<{ path: string; text: string }> {
  const folder = new URL('src/', root);
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.ts') && !path.endsWith('/actions.ts'))
    .map((path) => ({ path, text: readFileSync(new URL(path, folder), 'utf8') }));
}

describe('the declared buttons', () => {
  it('are each placed on some screen (buttonOf, a Home entry): a button with a listener that no builder shows is dead', async () => {
    const sources = sourcesBesidesDeclarations();
    for (const declared of await capabilityDeclarations()) {
      for (const key of Object.keys(declared.buttons ?? {})) {
        const used = new RegExp(String.raw`\bbuttons\.${key}\b`);
        expect(
          sources.filter((source) => used.test(source.text)).map((source) => source.path),
          `${declared.capability}: buttons.${key} is declared, but no file of src/ places it`,
        ).not.toEqual([]);
      }
    }
  });
});
