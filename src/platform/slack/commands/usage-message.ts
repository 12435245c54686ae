import { context, message, section, type MessageContent } from '../../blocks/blocks.js';
import { cutText, escapeMrkdwn, inlineCode } from '../../blocks/mrkdwn.js';
import type { CommandRegistry } from './command-registry.js';

/**
 * The help text, generated from the registry so every subcommand is listed. Usages such as `<contractId>`
 * are escaped (Slack would read `<…>` as a link), in the blocks and in the fallback text alike.
 */
export function usageMessage(registry: CommandRegistry, commandName: string): MessageContent {
  const lines = registry.list().map((sub) => {
    const aliases = sub.aliases?.length ? ` (also ${sub.aliases.map((a) => inlineCode(a)).join(', ')})` : '';
    const usage = `${commandName} ${sub.name}${sub.arguments ? ` ${sub.arguments}` : ''}`;
    return `• ${inlineCode(usage)}${aliases}: ${escapeMrkdwn(sub.description)}`;
  });
  const fallback = registry.defaultSubcommand;
  const command = inlineCode(commandName);
  const blocks = [
    section(
      `*${escapeMrkdwn(commandName)}* operates the Mint Link and Wallet service from Slack.\n${lines.join('\n')}`,
    ),
    ...(fallback ? [context(`${command} alone does ${inlineCode(`${commandName} ${fallback.name}`)}.`)] : []),
  ];
  return message(`${escapeMrkdwn(commandName)} usage:\n${lines.join('\n')}`, blocks);
}

/** The answer to `/mintlink <word>` when no subcommand is called `word`: the word (escaped) and the usage. */
export function unknownSubcommandMessage(registry: CommandRegistry, commandName: string, word: string): MessageContent {
  const usage = usageMessage(registry, commandName);
  const cut = cutText(word, 60);
  const problem = `:warning: ${escapeMrkdwn(commandName)} has no subcommand ${inlineCode(cut)}.`;
  return message(`${escapeMrkdwn(commandName)} has no subcommand "${escapeMrkdwn(cut)}". ${usage.text}`, [
    section(problem),
    ...usage.blocks,
  ]);
}
