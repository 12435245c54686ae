import { isRecord } from '../../platform/mint/mint-api-client.js';

/*
 * The spec does not show a template's fields, so they are looked for under common names; anything else
 * is shown as a few key/value pairs.
 */

export interface TemplateFields {
  title: string | undefined;
  id: string | undefined;
  description: string | undefined;
  imageUrl: string | undefined;
  /** For templates with none of the above: a few of their scalar fields. */
  other: Array<[string, string]>;
}

const TITLE_KEYS = ['name', 'title', 'displayName', 'display_name', 'label'];
const ID_KEYS = ['id', '_id', 'templateId', 'template_id', 'uuid', 'tokenId', 'token_id'];
const DESCRIPTION_KEYS = ['description', 'desc', 'summary', 'details'];
const IMAGE_KEYS = [
  'image',
  'imageUrl',
  'image_url',
  'imageURI',
  'image_uri',
  'thumbnail',
  'thumbnailUrl',
  'thumbnail_url',
  'img',
  'media',
  'picture',
];
const NESTED_KEYS = ['metadata', 'meta', 'attributes', 'data'];

export function templateFields(item: unknown): TemplateFields {
  if (!isRecord(item)) {
    const text =
      // Items come from parsed JSON: text as it is, anything else as JSON.
      item === null || item === undefined ? undefined : typeof item === 'string' ? item : JSON.stringify(item);
    return { title: text, id: undefined, description: undefined, imageUrl: undefined, other: [] };
  }
  const nested = NESTED_KEYS.map((k) => item[k]).filter(isRecord);
  const find = (keys: string[], accept: (v: unknown) => string | undefined) => {
    for (const source of [item, ...nested]) {
      for (const key of keys) {
        const found = accept(source[key]);
        if (found !== undefined) return found;
      }
    }
    return undefined;
  };
  const title = find(TITLE_KEYS, text);
  const id = find(ID_KEYS, (v) => (typeof v === 'number' ? String(v) : text(v)));
  const description = find(DESCRIPTION_KEYS, text);
  const imageUrl = find(IMAGE_KEYS, httpsUrl);
  const known = new Set([...TITLE_KEYS, ...ID_KEYS, ...DESCRIPTION_KEYS, ...IMAGE_KEYS]);
  const other =
    title || description
      ? []
      : Object.entries(item)
          .filter(
            ([k, v]) => !known.has(k) && (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'),
          )
          .slice(0, 4)
          .map(([k, v]): [string, string] => [k, String(v)]);
  return { title, id, description, imageUrl, other };
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}

/** Only https images: Slack fetches them itself and refuses plain http. */
function httpsUrl(value: unknown): string | undefined {
  return typeof value === 'string' && /^https:\/\/\S+$/.test(value) && value.length <= 3000 && URL.canParse(value)
    ? value
    : undefined;
}
