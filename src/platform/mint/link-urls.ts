import { isRecord, type MintRecord } from './mint-api-client.js';

/** Field names a service commonly gives a link's URL; preferred when several URLs are in the answer. */
const URL_KEYS = ['url', 'link', 'mintLink', 'mintUrl', 'claimUrl', 'claimLink', 'shortUrl', 'href'];

/**
 * The http(s) URLs in a link-creation answer, best first. The answer's fields are not specified, so any
 * string value that is a URL counts (one level of nesting is searched).
 */
export function linkUrls(answer: MintRecord): string[] {
  const found: Array<{ url: string; rank: number }> = [];
  const visit = (object: MintRecord, depth: number) => {
    for (const [key, value] of Object.entries(object)) {
      if (typeof value === 'string' && isHttpUrl(value)) {
        const rank = URL_KEYS.indexOf(key);
        found.push({ url: value, rank: rank === -1 ? URL_KEYS.length + depth : rank });
      } else if (isRecord(value) && depth === 0) {
        visit(value, 1);
      }
    }
  };
  visit(answer, 0);
  return [...new Set(found.sort((a, b) => a.rank - b.rank).map((f) => f.url))];
}

function isHttpUrl(value: string): boolean {
  return /^https?:\/\/\S+$/.test(value) && URL.canParse(value);
}
