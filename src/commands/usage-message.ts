import { context, message, section, type MessageContent } from '../slack-ui/blocks.js';
import { inlineCode } from '../slack-ui/mrkdwn.js';
import type { CommandRegistry } from './command-registry.js';

/** The help text, generated from the registry so every subcommand is listed. */
export function usageMessage(registry: CommandRegistry, commandName: string): MessageContent {
  const lines = registry.list().map((sub) => {
    const aliases = sub.aliases?.length ? ` (also ${sub.aliases.map((a) => `\`${a}\``).join(', ')})` : '';
    const usage = `${commandName} ${sub.name}${sub.arguments ? ` ${sub.arguments}` : ''}`;
    return `• \`${usage}\`${aliases}: ${sub.description}`;
  });
  const fallback = registry.defaultSubcommand;
  const blocks = [
    section(`*${commandName}* operates the Mint Link and Wallet service from Slack.\n${lines.join('\n')}`),
    ...(fallback ? [context(`\`${commandName}\` alone does \`${commandName} ${fallback.name}\`.`)] : []),
  ];
  return message(`${commandName} usage:\n${lines.join('\n')}`, blocks);
}

export function unknownSubcommandMessage(registry: CommandRegistry, commandName: string, word: string): MessageContent {
  const usage = usageMessage(registry, commandName);
  const shown = inlineCode(word.slice(0, 60));
  const problem = `:warning: ${commandName} has no subcommand ${shown}.`;
  return message(`${commandName} has no subcommand "${word.slice(0, 60)}". ${usage.text}`, [
    section(problem),
    ...usage.blocks,
  ]);
}
