import type { Choice } from './inputs.js';

/** Select choices for an enum of the spec: `CUSTODIAL` reads "Custodial". */
export function enumChoices(values: readonly string[]): Choice[] {
  return values.map((value) => ({ value, label: enumLabel(value) }));
}

export function enumLabel(value: string): string {
  const words = value.toLowerCase().split('_').join(' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}
