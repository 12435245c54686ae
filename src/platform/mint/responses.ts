/*
 * The spec shows no response fields, so responses are read tolerantly: any JSON object is kept whole,
 * and nothing is assumed about its fields.
 */

export type MintRecord = Record<string, unknown>;

export interface TemplatePage {
  /** The templates as the service sent them (usually objects; their fields are not specified). */
  items: unknown[];
  /** Total number of templates of the contract, when the service gives one. */
  total: number | undefined;
}

export function isRecord(value: unknown): value is MintRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Names a wrapper object commonly gives its list and its count; any array is accepted when none match. */
const LIST_KEYS = ['items', 'data', 'templates', 'results', 'rows', 'records', 'docs', 'content', 'list'];
const TOTAL_KEYS = ['total', 'totalCount', 'total_count', 'totalItems', 'totalResults', 'totalDocs', 'count'];
const META_KEYS = ['meta', 'pagination', 'page', 'paging'];

/** Accepts a bare array or an object wrapping an array (one level of nesting, e.g. `{data: {items}}`). */
export function parseTemplatePage(body: unknown): TemplatePage | undefined {
  if (Array.isArray(body)) return { items: body, total: undefined };
  if (!isRecord(body)) return undefined;
  const items = findList(body) ?? firstNested(body, findList);
  if (!items) return undefined;
  const total = findTotal(body, items.length) ?? firstNested(body, (o) => findTotal(o, items.length));
  return { items, total };
}

const isList = (value: unknown): value is unknown[] => Array.isArray(value);

function findList(object: MintRecord): unknown[] | undefined {
  for (const key of LIST_KEYS) {
    const value = object[key];
    if (isList(value)) return value;
  }
  return Object.values(object).find((value) => Array.isArray(value));
}

function findTotal(object: MintRecord, pageLength: number): number | undefined {
  for (const key of TOTAL_KEYS) {
    const raw = object[key];
    const value = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : raw;
    // A "total" smaller than the page it came with is a page count, not a total.
    if (typeof value === 'number' && Number.isInteger(value) && value >= pageLength) return value;
  }
  return undefined;
}

function firstNested<T>(object: MintRecord, read: (nested: MintRecord) => T | undefined): T | undefined {
  for (const key of [...LIST_KEYS, ...META_KEYS]) {
    const nested = object[key];
    if (isRecord(nested)) {
      const found = read(nested);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/**
 * A few of a record's fields as text, for showing an answer whose fields the spec does not give: values as
 * they are (cut), lists by their length, nested objects elided.
 */
export function recordHighlights(record: MintRecord, max = 6): Array<[string, string]> {
  return Object.entries(record)
    .slice(0, max)
    .map(([key, value]): [string, string] => {
      if (Array.isArray(value)) return [key, `${value.length} item${value.length === 1 ? '' : 's'}`];
      if (value === null || ['string', 'number', 'boolean'].includes(typeof value))
        return [key, String(value).slice(0, 80)];
      return [key, '…'];
    });
}

/** Names the delete answer may give the customers it did not find (the spec shows no fields). */
const NOT_FOUND_KEY = /^(not[_-]?found|missing)$/i;

/**
 * How many of `sent` customers a delete answer says were not found: a list or a count under a "not found"
 * field (`notFound`, `not_found`, `missing`), capped at what was sent (0 for an empty list); undefined when
 * the answer has no such field, or one that is neither.
 */
export function notFoundCount(answer: MintRecord, sent: number): number | undefined {
  for (const [key, value] of Object.entries(answer)) {
    if (!NOT_FOUND_KEY.test(key)) continue;
    const count = Array.isArray(value) ? value.length : value;
    if (typeof count === 'number' && Number.isInteger(count) && count >= 0) return Math.min(count, sent);
  }
  return undefined;
}
