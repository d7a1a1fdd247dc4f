// A video task as the two client shapes ask for it, read into Ark's request body (the one upstream API the gateway
// runs tasks on). new-api's `POST /v1/video/generations`: {model, prompt, seconds?, size?, images?[], metadata?{...}};
// OpenAI's `POST /v1/videos`: {model, prompt, seconds, size, input_reference}. The body is rebuilt from the checked
// values, never forwarded as sent: the text first, then the images as `image_url` content with their roles, then
// `metadata.content`'s items (task-content.ts), every link held to CreateAsset's rules or the asset library's
// ownership (task-links.ts); the other `metadata` fields are Ark's own, each read as its type, and go to the top
// level, but `model` (a caller must not pick what it is billed for) and `callback_url` (the upstream would call the
// caller's URL with the upstream's ids).

import { GatewayError } from '../../core/errors.js';
import { contentItems, imageItem, invalid, isObject, onlyKeys, refuseCaseDuplicates, textOf } from './task-content.js';
import { newTaskLinks, readMediaUrl, type TaskLinks } from './task-links.js';
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
  /** Every `asset://` id the request names (in a media field or a text), in order, once each. */
  readonly assetIds: readonly string[];
  /** The host names of its https:// links, each with the field that gave it: resolved before anything is written or sent. */
  readonly hosts: ReadonlyMap<string, string>;
}

const MAX_CONTENT_ITEMS = 64;
const MAX_PROMPT_CHARS = 20_000;
/** Not forwarded: `model` (the channel's name goes), `content` (built above), `callback_url` (the upstream's ids). */
const DROPPED: ReadonlySet<string> = new Set(['model', 'content', 'callback_url']);
const NAME = /^[a-z_]{1,32}$/;
/** Each value is rebuilt as its type, so that no field carries more than Ark reads from it. */
type FieldReader = (value: unknown, param: string) => unknown;
const boolean: FieldReader = (value, param) => {
  if (typeof value !== 'boolean') throw invalid(param, 'expected true or false');
  return value;
};
const integer =
  (min: number, max: number): FieldReader =>
  (value, param) => {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) throw invalid(param, `expected a whole number from ${min} to ${max}`);
    return value;
  };
const matching =
  (pattern: RegExp, what: string): FieldReader =>
  (value, param) => {
    if (typeof value !== 'string' || !pattern.test(value)) throw invalid(param, `expected ${what}`);
    return value;
  };
const tools: FieldReader = (value, param) => {
  if (!Array.isArray(value) || value.length > 8) throw invalid(param, 'expected an array of at most 8 tools, each {"type": "web_search"}');
  return value.map((tool, i) => {
    if (!isObject(tool)) throw invalid(`${param}[${i}]`, 'expected an object with a `type`');
    onlyKeys(tool, ['type'], `${param}[${i}]`);
    return { type: matching(NAME, 'a tool type such as web_search')(tool['type'], `${param}[${i}].type`) };
  });
};
/**
 * Ark's task fields a caller may set, each with its reader. Anything else is refused rather than forwarded: a field the
 * reservation does not know of could make the task cost more than was set aside (`frames` in place of `duration`).
 */
const ARK_FIELDS: ReadonlyMap<string, FieldReader> = new Map<string, FieldReader>([
  ['resolution', matching(/^\d{3,4}p$/, "'480p', '720p' or '1080p'")],
  ['ratio', matching(/^(\d{1,2}:\d{1,2}|adaptive|keep_ratio)$/, "a ratio such as '16:9', or 'adaptive'")],
  // Read by secondsOf, and written as the reservation assumed.
  ['duration', (value) => value],
  ['seed', integer(-1, 4_294_967_295)],
  ['watermark', boolean],
  ['generate_audio', boolean],
  ['camera_fixed', boolean],
  ['return_last_frame', boolean],
  ['draft', boolean],
  ['tools', tools],
  ['safety_identifier', matching(/^[A-Za-z0-9_.:@=+-]{1,64}$/, 'an identifier of at most 64 letters, digits and _.:@=+-')],
  ['service_tier', matching(NAME, "a tier such as 'default' or 'flex'")],
  ['priority', (value, param) => (typeof value === 'number' ? integer(0, 100)(value, param) : matching(NAME, 'a priority such as high')(value, param))],
  ['execution_expires_after', integer(1, 10_000_000)],
]);
/** The top-level fields read; another spelled as one of them but for case is a field the caller meant and Ark would not get. */
const READ_FIELDS: readonly string[] = ['model', 'prompt', 'seconds', 'duration', 'size', 'images', 'image', 'metadata', 'input_reference', 'input_reference[image_url]'];

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

function refuseCaseTwins(fields: Readonly<Record<string, unknown>>): void {
  for (const name of Object.keys(fields)) {
    if (READ_FIELDS.includes(name)) continue;
    const twin = READ_FIELDS.find((read) => read.toLowerCase() === name.toLowerCase());
    if (twin !== undefined) throw invalid(name, `the field differs only by case from '${twin}': send each field once, as documented`);
  }
}

/** OpenAI's `input_reference`: a URL (or asset link), or `{image_url}`; the first frame. */
function referenceItem(reference: unknown, links: TaskLinks): Record<string, unknown> {
  if (!isObject(reference)) return imageItem(reference, 'input_reference', links, 'first_frame');
  onlyKeys(reference, ['image_url'], 'input_reference');
  return { type: 'image_url', image_url: { url: readMediaUrl(reference['image_url'], 'input_reference.image_url', links) }, role: 'first_frame' };
}

/**
 * Reads a task request of `shape` from its fields (a JSON body, or a form's text fields: OpenAI's SDK sends a form,
 * `input_reference[image_url]` for an object). Refuses, naming the field, what Ark could not be given.
 */
export function readTaskRequest(shape: TaskShape, fields: Readonly<Record<string, unknown>>, model: string): TaskRequest {
  refuseCaseTwins(fields);
  const links = newTaskLinks();
  const prompt = fields['prompt'] === undefined || fields['prompt'] === null ? null : textOf(fields['prompt'], 'prompt', MAX_PROMPT_CHARS, links);
  const metadata = fields['metadata'] ?? {};
  if (!isObject(metadata)) throw invalid('metadata', 'expected an object');
  const images: Record<string, unknown>[] = [];
  if (shape === 'generations') {
    // Both said: the one not read would be a link nobody checked, or a caller's image silently left out.
    if (fields['images'] !== undefined && fields['image'] !== undefined) throw invalid('image', 'send the images in `images` alone');
    const list = fields['images'] ?? (fields['image'] === undefined ? [] : [fields['image']]);
    if (!Array.isArray(list)) throw invalid('images', 'expected an array of image URLs');
    if (list.length > MAX_CONTENT_ITEMS) throw invalid('images', `at most ${MAX_CONTENT_ITEMS} images`);
    list.forEach((item, i) => images.push(imageItem(item, `images[${i}]`, links)));
  } else {
    if (fields['input_reference'] !== undefined && fields['input_reference[image_url]'] !== undefined) {
      throw invalid('input_reference[image_url]', 'send one `input_reference`');
    }
    const reference = fields['input_reference'] ?? fields['input_reference[image_url]'];
    if (reference !== undefined && reference !== null) images.push(referenceItem(reference, links));
  }
  const content: Record<string, unknown>[] = [];
  if (prompt !== null && prompt !== '') content.push({ type: 'text', text: prompt });
  const given = metadata['content'];
  if (Array.isArray(given) && given.length > MAX_CONTENT_ITEMS) throw invalid('metadata.content', `at most ${MAX_CONTENT_ITEMS} content items`);
  content.push(...images, ...contentItems(given, links));
  if (content.length === 0) throw new GatewayError('GW_ERR_REQUEST_MISSING_FIELD', "A video task needs a 'prompt' (or content to start from).", { param: 'prompt' });
  if (content.length > MAX_CONTENT_ITEMS) throw invalid('metadata.content', `at most ${MAX_CONTENT_ITEMS} content items`);

  const body: Record<string, unknown> = {};
  refuseCaseDuplicates(metadata, 'metadata');
  for (const [name, value] of Object.entries(metadata)) {
    if (DROPPED.has(name)) continue;
    if (name === 'frames') throw invalid('metadata.frames', 'give the length as `duration` (seconds)');
    const read = ARK_FIELDS.get(name);
    if (read === undefined) throw invalid(`metadata.${name.slice(0, 64)}`, `not a field of a Seedance task (known: ${[...ARK_FIELDS.keys()].join(', ')})`);
    if (value !== null && value !== undefined) body[name] = read(value, `metadata.${name}`);
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
  return { model, prompt, body, seconds, resolution, size, assetIds: links.assetIds, hosts: links.hosts };
}
