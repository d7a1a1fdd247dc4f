// A video task as the two client shapes ask for it, read into Ark's request body (the one upstream API the gateway
// runs tasks on). new-api's `POST /v1/video/generations`: {model, prompt, seconds?, size?, images?[], metadata?{...}};
// OpenAI's `POST /v1/videos`: {model, prompt, seconds, size, input_reference}. The text goes first, then the images
// as `image_url` content with their roles, then `metadata.content` as given; the other `metadata` fields are Ark's
// own and go to the top level, but `model` (a caller must not pick what it is billed for) and `callback_url` (the
// upstream would call the caller's URL with the upstream's ids).

import { GatewayError } from '../errors.js';
import { arkSizeOf, DEFAULT_RESOLUTION, DEFAULT_SECONDS, isResolution } from './video-size.js';

export type TaskShape = 'openai' | 'generations';

export interface TaskRequest {
  readonly model: string;
  readonly prompt: string | null;
  /** Ark's body but `model` (the channel's upstream name goes in). */
  readonly body: Readonly<Record<string, unknown>>;
  /** Seconds asked (null: auto, the upstream picks). */
  readonly seconds: number | null;
  /** Ark's resolution the task asks for (its defaults when not said). */
  readonly resolution: string;
  /** The size as the caller wrote it, shown back in its answers. */
  readonly size: string | null;
  /** Every `asset://` id the content names, in order, once each. */
  readonly assetIds: readonly string[];
}

const MAX_CONTENT_ITEMS = 64;
const MAX_PROMPT_CHARS = 20_000;
/** Not forwarded: `model` (the channel's name goes), `content` (built above), `callback_url` (the upstream's ids). */
const DROPPED: ReadonlySet<string> = new Set(['model', 'content', 'callback_url']);
/**
 * Ark's task fields a caller may set. Anything else is refused rather than forwarded: a field the reservation does not
 * know of could make the task cost more than was set aside (`frames` in place of `duration`).
 */
const ARK_FIELDS: ReadonlySet<string> = new Set([
  'resolution',
  'ratio',
  'duration',
  'seed',
  'watermark',
  'generate_audio',
  'camera_fixed',
  'return_last_frame',
  'draft',
  'tools',
  'safety_identifier',
  'service_tier',
  'priority',
  'execution_expires_after',
]);
const IMAGE_ROLES: ReadonlySet<string> = new Set(['first_frame', 'last_frame', 'reference_image']);
/** Where a content item holds its URL, by its type. */
const URL_FIELDS: ReadonlyMap<string, string> = new Map([
  ['image_url', 'image_url'],
  ['video_url', 'video_url'],
  ['audio_url', 'audio_url'],
]);
/** An asset link, however its scheme is written: one the check missed must not reach the upstream. */
const ASSET = /^\s*asset:\/\//i;

function invalid(param: string, why: string): GatewayError {
  return new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `Invalid '${param}': ${why}.`, { param });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A count of seconds: a number or the text of one (OpenAI sends "4"); -1 is Ark's "auto". */
function secondsOf(value: unknown, param: string): number | null | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^-?\d{1,3}$/.test(value) ? Number(value) : NaN;
  if (n === -1) return null;
  if (!Number.isInteger(n) || n < 1 || n > 60) throw invalid(param, 'expected a whole number of seconds from 1 to 60 (or -1: auto)');
  return n;
}

function stringOf(value: unknown, param: string, max = 2048): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.length > max) throw invalid(param, `expected a text of at most ${max} characters`);
  return value;
}

/** An image the caller names: a URL (or asset link) text, or `{url, role}`; strings are reference images. */
function imageItem(value: unknown, param: string): Record<string, unknown> {
  if (typeof value === 'string') return { type: 'image_url', image_url: { url: urlOf(value, param) }, role: 'reference_image' };
  if (!isObject(value)) throw invalid(param, 'expected an image URL, or an object with `url` and `role`');
  const url = urlOf(value['url'] ?? (isObject(value['image_url']) ? value['image_url']['url'] : value['image_url']), `${param}.url`);
  const role = value['role'] ?? 'reference_image';
  if (typeof role !== 'string' || !IMAGE_ROLES.has(role)) throw invalid(`${param}.role`, `expected one of ${[...IMAGE_ROLES].join(', ')}`);
  return { type: 'image_url', image_url: { url }, role };
}

function urlOf(value: unknown, param: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 10_000_000) throw invalid(param, 'expected a URL, a data URL or an asset:// link');
  return value;
}

/** `metadata.content` items as given, each an object whose URL field (if any) holds a text. */
function contentItems(value: unknown): Record<string, unknown>[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalid('metadata.content', 'expected an array of content items');
  return value.map((item, i) => {
    const param = `metadata.content[${i}]`;
    if (!isObject(item) || typeof item['type'] !== 'string') throw invalid(param, 'expected an object with a `type`');
    const field = URL_FIELDS.get(item['type']);
    if (field !== undefined) {
      const holder = item[field];
      if (!isObject(holder)) throw invalid(`${param}.${field}`, 'expected an object with a `url`');
      urlOf(holder['url'], `${param}.${field}.url`);
    }
    return item;
  });
}

/** The asset ids the content links to (`asset://<id>`), each once, in order. */
function assetIdsOf(content: readonly Record<string, unknown>[]): string[] {
  const ids: string[] = [];
  for (const item of content) {
    const field = URL_FIELDS.get(String(item['type']));
    const holder = field === undefined ? undefined : item[field];
    const url = isObject(holder) ? holder['url'] : undefined;
    const scheme = typeof url === 'string' ? ASSET.exec(url) : null;
    if (scheme !== null && typeof url === 'string') {
      const id = url.slice(scheme[0].length);
      if (!ids.includes(id)) ids.push(id);
    }
  }
  return ids;
}

/**
 * Reads a task request of `shape` from its fields (a JSON body, or a form's text fields: OpenAI's SDK sends a form,
 * `input_reference[image_url]` for an object). Refuses, naming the field, what Ark could not be given.
 */
export function readTaskRequest(shape: TaskShape, fields: Readonly<Record<string, unknown>>, model: string): TaskRequest {
  const prompt = stringOf(fields['prompt'], 'prompt', MAX_PROMPT_CHARS) ?? null;
  const metadata = fields['metadata'] ?? {};
  if (!isObject(metadata)) throw invalid('metadata', 'expected an object');
  const images: Record<string, unknown>[] = [];
  if (shape === 'generations') {
    const list = fields['images'] ?? (fields['image'] === undefined ? [] : [fields['image']]);
    if (!Array.isArray(list)) throw invalid('images', 'expected an array of image URLs');
    list.forEach((item, i) => images.push(imageItem(item, `images[${i}]`)));
  } else {
    const reference = fields['input_reference'] ?? fields['input_reference[image_url]'];
    if (reference !== undefined && reference !== null) images.push(imageItem(isObject(reference) ? { url: reference['image_url'], role: 'first_frame' } : { url: reference, role: 'first_frame' }, 'input_reference'));
  }
  const content: Record<string, unknown>[] = [];
  if (prompt !== null && prompt !== '') content.push({ type: 'text', text: prompt });
  content.push(...images, ...contentItems(metadata['content']));
  if (content.length === 0) throw new GatewayError('GW_ERR_REQUEST_MISSING_FIELD', "A video task needs a 'prompt' (or content to start from).", { param: 'prompt' });
  if (content.length > MAX_CONTENT_ITEMS) throw invalid('metadata.content', `at most ${MAX_CONTENT_ITEMS} content items`);

  const body: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(metadata)) {
    if (DROPPED.has(name)) continue;
    if (name === 'frames') throw invalid('metadata.frames', 'give the length as `duration` (seconds)');
    if (!ARK_FIELDS.has(name)) throw invalid(`metadata.${name.slice(0, 64)}`, `not a field of a Seedance task (known: ${[...ARK_FIELDS].join(', ')})`);
    body[name] = value;
  }
  body['content'] = content;
  const size = stringOf(fields['size'], 'size', 32) ?? null;
  if (size !== null && body['resolution'] === undefined) {
    const ark = isResolution(size) ? { resolution: size, ratio: undefined } : arkSizeOf(size);
    if (ark === null) throw invalid('size', "expected WIDTHxHEIGHT (e.g. '1280x720') or a resolution ('480p', '720p', '1080p')");
    body['resolution'] = ark.resolution;
    if (ark.ratio !== undefined && body['ratio'] === undefined) body['ratio'] = ark.ratio;
  }
  // The first said of the three (null, "auto", is said: it must not fall through to the next).
  const said = [secondsOf(metadata['duration'], 'metadata.duration'), secondsOf(fields['seconds'], 'seconds'), secondsOf(fields['duration'], 'duration')];
  const asked = said.find((s) => s !== undefined);
  const seconds = asked === undefined ? DEFAULT_SECONDS : asked;
  const resolution = body['resolution'] === undefined ? DEFAULT_RESOLUTION : body['resolution'];
  if (typeof resolution !== 'string' || !isResolution(resolution)) throw invalid('metadata.resolution', "expected '480p', '720p' or '1080p'");
  // What the reservation assumed is what the upstream is told: a model whose own defaults are longer or larger must not
  // make a task cost more than was set aside.
  body['resolution'] = resolution;
  body['duration'] = seconds ?? -1;
  return { model, prompt, body, seconds, resolution, size, assetIds: assetIdsOf(content) };
}
