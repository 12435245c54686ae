import type { AckFn, RespondArguments, RespondFn, SlashCommand } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../../ops/telemetry/create-logger.js';
import type { Ended } from '../pipeline/listen.js';

/** What a subcommand receives: the command, its words after the subcommand name, and Bolt's helpers. */
export interface SubcommandContext {
  command: SlashCommand;
  /** The workspace the command is for, decided by the request pipeline (not `command.team_id`: see request-workspace.ts). */
  teamId: string;
  /** The words after the subcommand's name (split on any whitespace). */
  args: string[];
  /** The text after the subcommand's name, untouched. */
  rest: string;
  ack: AckFn<string | RespondArguments>;
  respond: RespondFn;
  client: WebClient;
  logger: Logger;
}

export interface Subcommand {
  name: string;
  aliases?: readonly string[];
  /** Arguments shown in help, e.g. `[nftId]` (plain text: help shows it in code, escaped). */
  arguments?: string;
  /** One line for help (plain text: help escapes it). */
  description: string;
  /**
   * Must ack within Slack's 3 seconds, before any slow work. Throws `refused`/`invalidInput` (request-ended.ts)
   * to answer the person with why; returns how the work ended when not as asked.
   */
  run(context: SubcommandContext): Promise<Ended>;
}

/** The subcommands of /mintlink: dispatch and help both come from here. */
export class CommandRegistry {
  private readonly byName = new Map<string, Subcommand>();
  private readonly ordered: Subcommand[] = [];
  private fallback: Subcommand | undefined;

  register(subcommand: Subcommand, options: { default?: boolean } = {}): this {
    for (const name of [subcommand.name, ...(subcommand.aliases ?? [])]) {
      const key = name.toLowerCase();
      if (this.byName.has(key)) throw new Error(`subcommand "${name}" is registered twice`);
      this.byName.set(key, subcommand);
    }
    this.ordered.push(subcommand);
    if (options.default) this.fallback = subcommand;
    return this;
  }

  find(word: string): Subcommand | undefined {
    return this.byName.get(word.toLowerCase());
  }

  /** What `/mintlink` alone does. */
  get defaultSubcommand(): Subcommand | undefined {
    return this.fallback;
  }

  list(): readonly Subcommand[] {
    return this.ordered;
  }
}

/** Splits `link  abc def` into the first word and the rest. */
export function splitCommandText(text: string): { word: string; rest: string; args: string[] } {
  const trimmed = text.trim();
  const match = /^(\S+)\s*([\s\S]*)$/.exec(trimmed);
  const word = match?.[1] ?? '';
  const rest = match?.[2] ?? '';
  return { word, rest, args: rest.split(/\s+/).filter(Boolean) };
}
