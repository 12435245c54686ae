import type { Button } from '@slack/types';
import { LIMITS, truncate } from '../../blocks/limits.js';

/**
 * What a capability answers in Slack, declared once per capability (its `actions.ts`): the shortcuts, the
 * buttons, the modals (views) it reads back, the external selects and the Workflow Builder steps, each with its
 * id and what the pipeline and the builders need. The capability's `register` hands `listen().declared(...)` one
 * listener per entry (the type asks for each and refuses any other; a missing or extra one also fails at start),
 * and its Block Kit builders make each button with `buttonOf(...)` from the same entry. The ids live only here.
 *
 * Listeners are not in the declaration itself: the builders read it, and listeners use the builders, so a
 * declaration importing its listeners would be an import cycle.
 */
export interface ButtonDeclaration {
  actionId: string;
  /** The button's text where it is always the same (a builder may pass its own, e.g. "⇅ Ascending order"). */
  label?: string;
  style?: 'primary' | 'danger';
  /** The same click delivered twice (Slack's retry, two replicas) runs once. */
  once?: boolean;
}
export interface FormDeclaration {
  callbackId: string;
  /** The title of a notice that replaces the modal when a view comes back without one. */
  title: string;
}
export interface ShortcutDeclaration {
  callbackId: string;
}
export interface OptionsDeclaration {
  actionId: string;
}
export interface StepDeclaration {
  callbackId: string;
  /** What the step makes, for its failure texts ("the mint link"). */
  thing: string;
}
/** A slash command, matched by name (a dev copy such as `/mintlink-dev` too); `name` is the manifest's. */
export interface CommandDeclaration {
  name: string;
  matches: RegExp;
}

export interface Declarations {
  commands?: Record<string, CommandDeclaration>;
  shortcuts?: Record<string, ShortcutDeclaration>;
  messageShortcuts?: Record<string, ShortcutDeclaration>;
  buttons?: Record<string, ButtonDeclaration>;
  forms?: Record<string, FormDeclaration>;
  options?: Record<string, OptionsDeclaration>;
  steps?: Record<string, StepDeclaration>;
}

/** The kinds a declaration may have, in the order they are registered. */
export const DECLARED_KINDS = [
  'commands',
  'shortcuts',
  'messageShortcuts',
  'buttons',
  'forms',
  'options',
  'steps',
] as const satisfies readonly (keyof Declarations)[];

/** A capability's declarations, named (for the start-up check's messages) and typed exactly as written. */
export type Declared<D extends Declarations> = D & { capability: string };

export function declare<const D extends Declarations>(capability: string, declarations: D): Declared<D> {
  return { capability, ...declarations };
}

/** The id Slack sends back for a declared entry (an action_id, callback_id or command name). */
export function idOf(entry: { actionId: string } | { callbackId: string } | CommandDeclaration): string {
  if ('actionId' in entry) return entry.actionId;
  if ('callbackId' in entry) return entry.callbackId;
  return entry.name;
}

/** A declared button as Block Kit: its id, its label (or `label`), its style, and the value it carries. */
export function buttonOf(
  declared: ButtonDeclaration,
  options: { value?: string; label?: string; style?: 'primary' | 'danger'; confirm?: Button['confirm'] } = {},
): Button {
  const text = options.label ?? declared.label;
  if (text === undefined) throw new Error(`the button "${declared.actionId}" has no declared label: pass one`);
  const style = options.style ?? declared.style;
  return {
    type: 'button',
    action_id: declared.actionId,
    text: { type: 'plain_text', text: truncate(text, LIMITS.buttonText), emoji: true },
    ...(options.value === undefined ? {} : { value: options.value }),
    ...(style ? { style } : {}),
    ...(options.confirm ? { confirm: options.confirm } : {}),
  };
}
