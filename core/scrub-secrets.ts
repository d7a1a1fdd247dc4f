// Upstream error bodies pass through to the client, and some vendors echo the key they were sent ("Incorrect API
// key provided: sk-..."). Before an error body or an in-band error event leaves, anything shaped like the
// channel's own keys (whole, base64-encoded, or cut short to a head and a tail) or a common key format is replaced. Successful bodies and events are never
// touched: they are the caller's content.
//
// Inside JSON a key may hide behind escapes (`\/` and `\u002f` for a slash, `\n` just before it): JSON text is
// scanned string by string, decoded (never as raw text, where a match could stop at an escape and leave the key's
// tail), and written again when something was replaced.

import { GatewayError, type GatewayErrorOptions } from './errors.js';
import type { SseFrame } from './sse/frame.js';
import { encodeFrame } from './sse/frame-writer.js';

/**
 * Common credential shapes: OpenAI/Anthropic/DeepSeek style, AWS, Google, Groq, Hugging Face, GitHub, Slack, xAI,
 * JWTs, bearer tokens. No word boundary before the prefixes: in JSON text a key may follow an escape (`\nsk-`), and
 * in a message an underscore or a letter. Replacing a little too much of an error message is the safe mistake.
 */
const KEY_PATTERNS: readonly RegExp[] = [
  /sk-[A-Za-z0-9_-]{16,}/g,
  /(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Z])/g,
  /AIza[0-9A-Za-z_-]{35}/g,
  /(?:gsk|hf|ghp|gho|github_pat|xoxb|xoxp)_[A-Za-z0-9_]{16,}/g,
  /xai-[A-Za-z0-9]{16,}/g,
  // Volcengine's and BytePlus's access key ids.
  /(?:AKLT|AKAP)[A-Za-z0-9_-]{16,}/g,
  /eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
  /(Bearer\s+)[A-Za-z0-9._~+/=-]{16,}/gi,
];

const REDACTED = '[redacted]';
/** Shorter channel keys are not searched for: they would match ordinary words. */
const MIN_KEY_LENGTH = 8;
/**
 * Upstreams echo a key they refused cut short ("sk-abc123def456...wxyz", "sk-proj-****abcd"): a key this long is
 * also searched for by its first HEAD_CHARS characters, followed by a mask or by more of the key.
 */
const MIN_PARTIAL_KEY_LENGTH = 16;
const HEAD_CHARS = 8;
/** A prefix of the key this long is an echo even with no mask after it (the probe saw the first 12). */
const BARE_PREFIX_CHARS = 12;
/** What upstreams mask the middle of a key with. */
const MASK_CHARS: ReadonlySet<string> = new Set(['*', '.', '\u2026', '\u2022', '\u00b7', '#']);
/** Characters a key (or its visible tail) is made of. */
const KEY_CHAR = /[A-Za-z0-9_-]/;
/** A run of base64 (either alphabet) around an echo found inside it: replaced whole. */
const BASE64_CHAR = /[A-Za-z0-9+/=_-]/;

/** `text` with the channel's keys and key-shaped strings replaced; JSON stays JSON (the stand-in needs no escaping). */
export function scrubSecrets(text: string, channelKeys: readonly string[]): string {
  let out = text;
  for (const key of channelKeys) {
    if (key.length < MIN_KEY_LENGTH) continue;
    out = out.replaceAll(key, REDACTED);
    // As it would stand inside a JSON string (a key with / or " in it is escaped there).
    const escaped = JSON.stringify(key).slice(1, -1);
    if (escaped !== key) out = out.replaceAll(escaped, REDACTED);
    if (key.length >= MIN_PARTIAL_KEY_LENGTH) out = withoutPartialEchoes(out, key);
    out = withoutBase64Echoes(out, key);
  }
  for (const pattern of KEY_PATTERNS) out = out.replace(pattern, (match, bearer?: unknown) => (typeof bearer === 'string' ? `${bearer}${REDACTED}` : REDACTED));
  return out;
}

/** An error's text (JSON or not), scrubbed; the same string when there was nothing to replace. */
export function scrubErrorText(text: string, channelKeys: readonly string[]): string {
  const first = text.trimStart().charCodeAt(0);
  // Only JSON objects and arrays hold escaped strings worth decoding; anything else is scanned as it is.
  if (first !== 0x7b && first !== 0x5b) return scrubSecrets(text, channelKeys);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return scrubSecrets(text, channelKeys);
  }
  const deep = { changed: false };
  const cleaned = scrubValue(value, channelKeys, deep);
  // Nothing found decoded: the raw text is scanned too, since JSON.parse keeps only the last of two same-named
  // members (`{"message":"<key>","message":"x"}`), and the client gets the raw text.
  return deep.changed ? JSON.stringify(cleaned) : scrubSecrets(text, channelKeys);
}

/** An upstream error body, scrubbed; the same Buffer when there was nothing to replace. */
export function scrubErrorBody(body: Buffer, channelKeys: readonly string[]): Buffer {
  const text = body.toString('utf8');
  const scrubbed = scrubErrorText(text, channelKeys);
  return scrubbed === text ? body : Buffer.from(scrubbed, 'utf8');
}

/** An in-band error event, scrubbed; the same frame when there was nothing to replace. */
export function scrubErrorFrame(frame: SseFrame, channelKeys: readonly string[]): SseFrame {
  if (frame.data === null) return frame;
  const data = scrubErrorText(frame.data, channelKeys);
  return data === frame.data ? frame : encodeFrame(data, frame.event ?? undefined);
}

/** An upstream's error as the gateway tells it (a translated stream's error event), its message scrubbed. */
export function scrubError(error: GatewayError, channelKeys: readonly string[]): GatewayError {
  const message = scrubErrorText(error.message, channelKeys);
  if (message === error.message) return error;
  const options: { -readonly [K in keyof GatewayErrorOptions]: GatewayErrorOptions[K] } = {};
  if (error.wireCode !== null) options.wireCode = error.wireCode;
  if (error.param !== null) options.param = error.param;
  if (error.upstreamStatus !== null) options.upstreamStatus = error.upstreamStatus;
  if (error.retryAfter !== null) options.retryAfter = error.retryAfter;
  if (error.resetsAt !== null) options.resetsAt = error.resetsAt;
  // Its own code and spec again (a feature's code is not in core's table).
  return new GatewayError({ code: error.code, spec: { status: error.status, kind: error.kind, wireCode: error.wireCode } }, message, options);
}

function scrubValue(value: unknown, channelKeys: readonly string[], deep: { changed: boolean }): unknown {
  if (typeof value === 'string') {
    const scrubbed = scrubSecrets(value, channelKeys);
    if (scrubbed !== value) deep.changed = true;
    return scrubbed;
  }
  if (Array.isArray(value)) return value.map((item) => scrubValue(item, channelKeys, deep));
  if (typeof value === 'object' && value !== null) {
    // No prototype: a member named __proto__ is kept as a member, not taken as the prototype.
    const out = Object.create(null) as Record<string, unknown>;
    for (const [name, item] of Object.entries(value)) out[scrubValue(name, channelKeys, deep) as string] = scrubValue(item, channelKeys, deep);
    return out;
  }
  return value;
}

/**
 * `text` without the key's partial echoes: its first HEAD_CHARS characters, then more of the key, then a mask and
 * the key's visible tail. An echo is the key's first BARE_PREFIX_CHARS or more, or its head followed by a mask: the
 * head alone is often a vendor's prefix (`sk-proj-`) that ordinary text may hold.
 */
function withoutPartialEchoes(text: string, key: string): string {
  const head = key.slice(0, HEAD_CHARS);
  let from = text.indexOf(head);
  if (from < 0) return text;
  let out = '';
  let copied = 0;
  while (from >= 0) {
    let end = from + HEAD_CHARS;
    while (end < text.length && end - from < key.length && text[end] === key[end - from]) end++;
    const prefix = end - from;
    let masked = end;
    while (masked < text.length && MASK_CHARS.has(text[masked] as string)) masked++;
    if (prefix < BARE_PREFIX_CHARS && masked === end) {
      from = text.indexOf(head, from + 1);
      continue;
    }
    // The rest of the echo: more key characters (a tail the upstream kept, or what the mask did not hide).
    end = masked;
    while (end < text.length && KEY_CHAR.test(text[end] as string)) end++;
    out += text.slice(copied, from) + REDACTED;
    copied = end;
    from = text.indexOf(head, end);
  }
  return out + text.slice(copied);
}

/**
 * `text` without the key base64-encoded (either alphabet, padded or not), also inside a longer encoded text (a Basic
 * credential, `Bearer <key>` encoded): for each of the three byte alignments the key can have there, the part of its
 * encoding that depends on the key's bytes alone is searched for, and the whole base64 run around it replaced.
 */
function withoutBase64Echoes(text: string, key: string): string {
  const bytes = Buffer.from(key, 'utf8');
  let out = text;
  for (let shift = 0; shift < 3; shift++) {
    const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString('base64');
    // Whole groups of three bytes of the key's only: the first mixes in what came before, the last what follows.
    const start = shift === 0 ? 0 : 4;
    const end = Math.floor((shift + bytes.length) / 3) * 4;
    if (end - start < MIN_PARTIAL_KEY_LENGTH) continue;
    const standard = encoded.slice(start, end);
    for (const core of new Set([standard, standard.replaceAll('+', '-').replaceAll('/', '_')])) out = replaceRuns(out, core);
  }
  return out;
}

/** Every base64 run of `text` that holds `core`, replaced. */
function replaceRuns(text: string, core: string): string {
  let at = text.indexOf(core);
  if (at < 0) return text;
  let out = '';
  let copied = 0;
  while (at >= 0) {
    let start = at;
    while (start > copied && BASE64_CHAR.test(text[start - 1] as string)) start--;
    let end = at + core.length;
    while (end < text.length && BASE64_CHAR.test(text[end] as string)) end++;
    out += text.slice(copied, start) + REDACTED;
    copied = end;
    at = text.indexOf(core, end);
  }
  return out + text.slice(copied);
}
