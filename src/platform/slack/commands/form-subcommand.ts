import type { ModalView } from '@slack/types';
import { openModal } from '../../blocks/open-modal.js';
import type { Subcommand } from './command-registry.js';

/** A subcommand that opens a form at once (the trigger expires in 3 s), prefilled with the command's text. */
export function formSubcommand(
  spec: Omit<Subcommand, 'run'> & { form: (prefill: string | undefined) => ModalView },
): Subcommand {
  const { form, ...rest } = spec;
  return {
    ...rest,
    run: async ({ ack, command, rest: text, client }) => {
      await ack();
      await openModal(client, command.trigger_id, form(text.trim() || undefined));
    },
  };
}
