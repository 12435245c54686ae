/**
 * Block Kit and surface limits the app builds against (Slack's reference pages; see
 * ../shared/slack-platform-facts.md §1). Dynamic text is cut to these with an ellipsis, never sent too long.
 */
export const LIMITS = {
  messageBlocks: 50,
  viewBlocks: 100,
  /** Recommended maximum of a message's top-level fallback text. */
  messageText: 4000,
  sectionText: 3000,
  sectionFields: 10,
  sectionFieldText: 2000,
  headerText: 150,
  contextElements: 10,
  actionsElements: 25,
  buttonText: 75,
  buttonValue: 2000,
  actionId: 255,
  blockId: 255,
  imageUrl: 3000,
  imageAltText: 2000,
  optionText: 75,
  optionValue: 150,
  placeholder: 150,
  inputLabel: 2000,
  inputHint: 2000,
  viewTitle: 24,
  viewButton: 24,
  privateMetadata: 3000,
  callbackId: 255,
  confirmTitle: 100,
  confirmText: 300,
  confirmButton: 30,
} as const;

/** Cuts text to at most `max` characters (code points never split), marking the cut with an ellipsis. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  return `${chars.slice(0, Math.max(0, max - 1)).join('')}…`;
}
