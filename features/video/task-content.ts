// The content items of a video task, rebuilt from what was checked: Ark's parser matches JSON keys without regard to
// case, the last one winning, so an item forwarded as sent could carry a second `URL` or `Image_URL` the checks never
// read. Each item may hold only its type's keys, spelled as Ark documents them (wire-formats.md 5.4), each once
// whatever its case; the item sent is a new object of the checked values.

import { GatewayError } from '../../core/errors.js';
import { readMediaUrl, scanText, type TaskLinks } from './task-links.js';

export type Item = Record<string, unknown>;

const MAX_TEXT_CHARS = 20_000;
/** The keys of each content type; `role` is optional, and one of its type's. */
const ITEM_KEYS: ReadonlyMap<string, readonly string[]> = new Map([
  ['text', ['type', 'text']],
  ['image_url', ['type', 'image_url', 'role']],
  ['video_url', ['type', 'video_url', 'role']],
  ['audio_url', ['type', 'audio_url', 'role']],
]);
const ROLES: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['image_url', new Set(['first_frame', 'last_frame', 'reference_image'])],
  ['video_url', new Set(['reference_video'])],
  ['audio_url', new Set(['reference_audio'])],
]);
export const IMAGE_ROLES: ReadonlySet<string> = ROLES.get('image_url') ?? new Set();

export function invalid(param: string, why: string): GatewayError {
  return new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `Invalid '${param.slice(0, 200)}': ${why}.`, { param: param.slice(0, 200) });
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Refuses an object holding two keys that differ only by case: the upstream may read either. */
export function refuseCaseDuplicates(value: Record<string, unknown>, param: string): void {
  const seen = new Map<string, string>();
  for (const key of Object.keys(value)) {
    const folded = key.toLowerCase();
    const other = seen.get(folded);
    if (other !== undefined) throw invalid(`${param}.${key}`, `the key differs only by case from '${other.slice(0, 64)}': send each field once`);
    seen.set(folded, key);
  }
}

/** Refuses an object holding a key not in `allowed` (exact spelling), or two keys that differ only by case. */
export function onlyKeys(value: Record<string, unknown>, allowed: readonly string[], param: string): void {
  refuseCaseDuplicates(value, param);
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) throw invalid(`${param}.${key}`, `not a field here (known: ${allowed.join(', ')})`);
  }
}

export function textOf(value: unknown, param: string, max: number, links: TaskLinks): string {
  if (typeof value !== 'string' || value.length > max) throw invalid(param, `expected a text of at most ${max} characters`);
  scanText(value, links);
  return value;
}

/** `{url}` of a media item, as `{url}` holding the checked URL. */
function holder(value: unknown, param: string, links: TaskLinks): Item {
  if (!isObject(value)) throw invalid(param, 'expected an object with a `url`');
  onlyKeys(value, ['url'], param);
  return { url: readMediaUrl(value['url'], `${param}.url`, links) };
}

/** One `metadata.content` item, rebuilt. */
export function contentItem(item: unknown, param: string, links: TaskLinks): Item {
  if (!isObject(item) || typeof item['type'] !== 'string') throw invalid(param, 'expected an object with a `type`');
  const type = item['type'];
  const keys = ITEM_KEYS.get(type);
  if (keys === undefined) throw invalid(`${param}.type`, `expected one of ${[...ITEM_KEYS.keys()].join(', ')}`);
  onlyKeys(item, keys, param);
  if (type === 'text') return { type, text: textOf(item['text'], `${param}.text`, MAX_TEXT_CHARS, links) };
  const rebuilt: Item = { type, [type]: holder(item[type], `${param}.${type}`, links) };
  const role = item['role'];
  if (role !== undefined) {
    const roles = ROLES.get(type) ?? new Set<string>();
    if (typeof role !== 'string' || !roles.has(role)) throw invalid(`${param}.role`, `expected one of ${[...roles].join(', ')}`);
    rebuilt['role'] = role;
  }
  return rebuilt;
}

/** `metadata.content`, each item rebuilt. */
export function contentItems(value: unknown, links: TaskLinks): Item[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalid('metadata.content', 'expected an array of content items');
  return value.map((item, i) => contentItem(item, `metadata.content[${i}]`, links));
}

/** An image the caller names: a URL (or asset link) text, or `{url, role}` (or `{image_url}`); texts are reference images. */
export function imageItem(value: unknown, param: string, links: TaskLinks, role = 'reference_image'): Item {
  if (typeof value === 'string') return { type: 'image_url', image_url: { url: readMediaUrl(value, param, links) }, role };
  if (!isObject(value)) throw invalid(param, 'expected an image URL, or an object with `url` and `role`');
  onlyKeys(value, ['type', 'url', 'image_url', 'role'], param);
  if (value['type'] !== undefined && value['type'] !== 'image_url') throw invalid(`${param}.type`, "expected 'image_url'");
  const nested = value['image_url'];
  if ((value['url'] === undefined) === (nested === undefined)) throw invalid(param, 'expected one of `url` or `image_url`');
  let url: string;
  if (nested === undefined) url = readMediaUrl(value['url'], `${param}.url`, links);
  else if (isObject(nested)) url = (holder(nested, `${param}.image_url`, links)['url'] as string);
  else url = readMediaUrl(nested, `${param}.image_url`, links);
  const asked = value['role'] ?? role;
  if (typeof asked !== 'string' || !IMAGE_ROLES.has(asked)) throw invalid(`${param}.role`, `expected one of ${[...IMAGE_ROLES].join(', ')}`);
  return { type: 'image_url', image_url: { url }, role: asked };
}
