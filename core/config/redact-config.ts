// The config file as the console shows it: the operator's own text, comments kept, with every secret replaced.
// A secret is a value under a secret-sounding name (key, keys, token, secret, password, ...), a key-shaped string
// anywhere (sk-...), or a URL's password and secret parameters. A `${VAR}` reference is shown as written: it names
// where the secret lives, not the secret.

import { isMap, isScalar, isSeq, parseDocument, visit, type Node } from 'yaml';
import { describeStoreUrl } from '../store/store-url.js';

const REDACTED = '***redacted***';
const SECRET_NAME = /(^|_)(key|keys|token|secret|password|passphrase|credential|credentials)$|^access_key_id$/i;
const KEY_SHAPED = /\b(sk|pk|rk|ak)-[A-Za-z0-9_-]{8,}/;
const ENV_REFERENCE = /^\$\{[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\}$/;

function redactedScalar(value: unknown): unknown {
  if (typeof value !== 'string' && typeof value !== 'number') return value;
  return typeof value === 'string' && ENV_REFERENCE.test(value) ? value : REDACTED;
}

/** Every scalar under a secret's name: one value, a list of them, or a map of them (a key's list of objects). */
function redactAll(node: Node | null): void {
  if (node === null) return;
  if (isScalar(node)) node.value = redactedScalar(node.value);
  else if (isSeq(node)) for (const item of node.items) redactAll(item as Node | null);
  else if (isMap(node)) for (const pair of node.items) redactAll(pair.value as Node | null);
}

export function redactConfig(text: string): string {
  const doc = parseDocument(text);
  visit(doc, {
    Pair(_key, pair) {
      const name = isScalar(pair.key) ? String(pair.key.value) : '';
      const value = pair.value as Node | null;
      // A list of key objects (`keys: [{name, key, group}]`) keeps its names: only each `key:` inside is a secret.
      if (SECRET_NAME.test(name) && !(isSeq(value) && value.items.some((item) => isMap(item)))) redactAll(value);
      else if (/url$/i.test(name) && isScalar(value) && typeof value.value === 'string') value.value = describeStoreUrl(value.value);
    },
    Scalar(_key, node) {
      if (typeof node.value === 'string' && KEY_SHAPED.test(node.value)) node.value = REDACTED;
    },
  });
  return doc.toString();
}
