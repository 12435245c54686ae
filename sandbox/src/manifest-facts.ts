import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

/*
 * What Slack knows of the app from its manifest (manifest.yml, the file pasted into Slack): the shortcuts in
 * its menus, the slash command's usage hint and the custom steps Workflow Builder offers. The sandbox reads
 * the same file, so its menus are the ones a workspace would show.
 */

export interface StepInput {
  name: string;
  title: string;
  description?: string;
  type: string;
  itemsType?: string;
  required: boolean;
  enum?: string[];
  /** What Workflow Builder shows for each enum value: the manifest's choice title, or the value itself. */
  choiceTitles?: Record<string, string>;
  default?: unknown;
}

export interface StepDeclaration {
  callbackId: string;
  title: string;
  description: string;
  inputs: StepInput[];
  outputs: Array<{ name: string; title: string; type: string }>;
}

export interface Shortcut {
  name: string;
  callbackId: string;
  description: string;
  type: 'global' | 'message';
}

export interface ManifestFacts {
  appName: string;
  commandUsage: string;
  commandDescription: string;
  shortcuts: Shortcut[];
  steps: StepDeclaration[];
}

interface RawParameter {
  type: string;
  title?: string;
  description?: string;
  is_required?: boolean;
  enum?: string[];
  choices?: Array<{ value: string; title?: string }>;
  default?: unknown;
  items?: { type: string };
}

interface RawManifest {
  display_information: { name: string };
  features: {
    slash_commands?: Array<{ command: string; description: string; usage_hint?: string }>;
    shortcuts?: Array<{ name: string; callback_id: string; description: string; type: 'global' | 'message' }>;
  };
  functions?: Record<
    string,
    {
      title: string;
      description: string;
      input_parameters: Record<string, RawParameter>;
      output_parameters: Record<string, RawParameter>;
    }
  >;
}

export function readManifestFacts(): ManifestFacts {
  const raw = parse(readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8')) as RawManifest;
  const command = raw.features.slash_commands?.[0];
  return {
    appName: raw.display_information.name,
    commandUsage: command?.usage_hint ?? '',
    commandDescription: command?.description ?? '',
    shortcuts: (raw.features.shortcuts ?? []).map((s) => ({
      name: s.name,
      callbackId: s.callback_id,
      description: s.description,
      type: s.type,
    })),
    steps: Object.entries(raw.functions ?? {}).map(([callbackId, step]) => ({
      callbackId,
      title: step.title,
      description: step.description,
      inputs: Object.entries(step.input_parameters).map(([name, p]) => ({
        name,
        title: p.title ?? name,
        ...(p.description ? { description: p.description } : {}),
        type: p.type,
        ...(p.items ? { itemsType: p.items.type } : {}),
        required: p.is_required ?? false,
        ...(p.enum ? { enum: p.enum } : {}),
        ...(p.choices ? { choiceTitles: Object.fromEntries(p.choices.map((c) => [c.value, c.title ?? c.value])) } : {}),
        ...(p.default !== undefined ? { default: p.default } : {}),
      })),
      outputs: Object.entries(step.output_parameters).map(([name, p]) => ({
        name,
        title: p.title ?? name,
        type: p.items ? `${p.type} of ${p.items.type}` : p.type,
      })),
    })),
  };
}
