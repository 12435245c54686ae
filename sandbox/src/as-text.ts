/**
 * A value of Slack's loosely typed JSON as text: a string as it is, a number or boolean written out, anything
 * else (an object where text belongs) as JSON, so that a wrong shape shows as itself, never as "[object Object]".
 */
export function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return value.toString();
  return JSON.stringify(value) ?? '';
}
