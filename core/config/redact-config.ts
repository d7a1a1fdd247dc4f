// The config file as the console shows it: the operator's settings, in their order, with every secret replaced.
// Rebuilt from the parsed values, so aliases are resolved (an anchor cannot carry a secret past its name) and
// comments are left out (a commented-out line may hold an old key). Replaced:
// - every value under a secret-sounding name (key, keys, token, secret, password, api-key, authorization, ...),
//   and every value of a channel's `headers` (an Authorization or api-key header is a credential);
// - a key-shaped string anywhere (`sk-...`);
// - a URL's user and password, and its query parameters whose names sound secret (`?key=`, `?sig=`, ...).
// A plain `${VAR}` reference is shown as written: it names where the secret lives, not the secret.

import { parseDocument, stringify } from 'yaml';

const REDACTED = '***redacted***';
// Not `credential`: the auth plugin's option of that name says which credential (`key`, `admin_token`), it holds none.
const SECRET_NAME = /(^|[_-])(key|keys|token|secret|password|passphrase|auth|authorization|cookie|signature)$|^access_key_id$|api[_-]?key/i;
const SECRET_PARAM = /key|sig|token|secret|pass|auth|code|credential/i;
const KEY_SHAPED = /\b(sk|pk|rk|ak)-[A-Za-z0-9_-]{8,}/;
const ENV_REFERENCE = /^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/;
/** Maps whose every value is a credential or may be one. */
const SECRET_MAPS: ReadonlySet<string> = new Set(['headers']);
/**
 * Lists of things whose `url` is a credential in itself (a Slack or Discord hook carries its token in the path): shown
 * as its origin only.
 */
const SECRET_URL_LISTS: ReadonlySet<string> = new Set(['webhooks']);
/** Maps keyed by names the operator chose (a group `byo-key`, a model): their keys are names, not fields. */
const NAMED_MAPS: ReadonlySet<string> = new Set(['groups', 'models', 'max_n', 'calls']);
/** A replaced value shorter than this is not hunted for elsewhere: `""` or `"1"` would hide ordinary values. */
const MIN_SCRUBBED = 8;

/** A URL with its credentials replaced; any other text as it is. */
function redactUrl(text: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return text;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return REDACTED;
  }
  if (url.username !== '') url.username = '***';
  if (url.password !== '') url.password = '***';
  for (const name of [...url.searchParams.keys()]) if (SECRET_PARAM.test(name)) url.searchParams.set(name, '***');
  // The URL class writes `***` escaped; shown as typed.
  return url.href.replaceAll('%2A%2A%2A', '***');
}

function redactText(text: string): string {
  if (KEY_SHAPED.test(text)) return REDACTED;
  return redactUrl(text);
}

/** Everything under a secret's name; a list of objects (a `keys:` list of {name, key, group}) keeps its other fields. */
function redactAll(value: unknown, found: Set<string>): unknown {
  if (typeof value === 'string') {
    if (ENV_REFERENCE.test(value)) return value;
    found.add(value);
    return REDACTED;
  }
  if (typeof value === 'number' || typeof value === 'bigint') return REDACTED;
  if (Array.isArray(value)) return value.map((item) => (isObject(item) ? redact(item, found) : redactAll(item, found)));
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([name, v]) => [name, redactAll(v, found)]));
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Redacts `value`, adding every secret it replaced to `found`; `named`: its keys are names the operator chose. */
function redact(value: unknown, found: Set<string>, named = false): unknown {
  if (typeof value === 'string') return redactText(value);
  if (Array.isArray(value)) return value.map((item) => redact(item, found));
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([name, v]) => {
      if (!named && SECRET_NAME.test(name)) return [name, redactAll(v, found)];
      // A header's value is replaced where it is, not hunted for elsewhere: most headers are not secrets (x-team: research).
      if (!named && SECRET_MAPS.has(name)) return [name, redactAll(v, new Set())];
      if (!named && SECRET_URL_LISTS.has(name) && Array.isArray(v)) return [name, v.map((item) => originOnly(redact(item, found)))];
      return [name, redact(v, found, !named && NAMED_MAPS.has(name))];
    }),
  );
}

/** An entry with its `url` cut to the origin (the rest, path and query, may be the receiver's token). */
function originOnly(item: unknown): unknown {
  if (!isObject(item) || typeof item['url'] !== 'string') return item;
  const url = URL.canParse(item['url']) ? new URL(item['url']) : null;
  return Object.assign({}, item, { url: url === null ? REDACTED : `${url.origin}/***` });
}

/** A secret written again elsewhere (an anchor's own field, a copy in a description) is replaced there too. */
function scrub(value: unknown, secrets: ReadonlySet<string>): unknown {
  if (typeof value === 'string') return value.length >= MIN_SCRUBBED && secrets.has(value) ? REDACTED : value;
  if (Array.isArray(value)) return value.map((item) => scrub(item, secrets));
  if (!isObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([name, v]) => [name, scrub(v, secrets)]));
}

export function redactConfig(text: string): string {
  const doc = parseDocument(text, { merge: true });
  // Aliases resolved: the value an alias stands for is judged where it is used.
  const value: unknown = doc.toJS({ maxAliasCount: 1000 });
  const found = new Set<string>();
  const redacted = redact(value, found);
  return stringify(scrub(redacted, found), { lineWidth: 0 });
}

/**
 * Whether the file's text itself holds a secret (not only `${VAR}` references to one): a value under a secret's
 * name, a key-shaped string anywhere (a commented-out old key included), or a URL with a password.
 */
export function holdsSecrets(text: string): boolean {
  if (KEY_SHAPED.test(text)) return true;
  let value: unknown;
  try {
    value = parseDocument(text, { merge: true }).toJS({ maxAliasCount: 1000 });
  } catch {
    return false;
  }
  const found = new Set<string>();
  redact(value, found);
  return found.size > 0 || hasUrlCredential(value);
}

function hasUrlCredential(value: unknown): boolean {
  // A URL whose credentials are `${VAR}` references holds none of its own (its `${` is not a password).
  if (typeof value === 'string') return !value.includes('${') && redactUrl(value) !== value;
  if (Array.isArray(value)) return value.some(hasUrlCredential);
  return isObject(value) && Object.values(value).some(hasUrlCredential);
}
