// The webhooks' settings (gateway.yaml's `webhooks:`): each hook's URL, events, signing secret and thresholds.

import { createHash } from 'node:crypto';
import { documentAs, type ConfigSection } from '../../core/config/section.js';
import { readPublicUrl } from '../../core/http/public-url.js';
import { parseMoney } from '../../core/money/decimal.js';
import { slot, type Slot } from '../../core/slot.js';
import type { WebhooksConfig } from './config.gen.js';
import { WEBHOOKS_CONFIG_SCHEMA } from './config-schema.js';

export interface WebhookTarget {
  /** A digest of its URL: the outbox's name for it, the same on every instance and after every restart. */
  readonly id: string;
  readonly url: URL;
  /** Read with any event's type (core's contract does not list them); it holds only event-types.ts' names. */
  readonly events: ReadonlySet<string>;
  /** The HMAC key. */
  readonly secret: Buffer;
  readonly allowPrivate: boolean;
  /** balance_low below this, in nano-units. */
  readonly balanceBelow: bigint;
  readonly keyExpiringDays: number;
}

export interface WebhookSettings {
  readonly hooks: readonly WebhookTarget[];
}

/** The schema's defaults (test/architecture/section-types.test.ts holds them equal). */
export const WEBHOOK_DEFAULTS = { balanceBelow: '1', keyExpiringDays: 7 } as const;

export const WEBHOOK_SETTINGS: Slot<WebhookSettings> = slot('webhook settings');

/** The outbox's name for a hook. */
export function hookId(url: string): string {
  return createHash('sha256').update(url).digest('hex').slice(0, 24);
}

/** The secret's bytes: after `whsec_`, base64 (the Standard Webhooks libraries' form); else the text itself. */
export function secretBytes(secret: string): Buffer {
  return secret.startsWith('whsec_') ? Buffer.from(secret.slice('whsec_'.length), 'base64') : Buffer.from(secret, 'utf8');
}

type Hook = NonNullable<WebhooksConfig['webhooks']>[number];

/** Why `hook`'s URL cannot be used, or null. A private one is checked again at each connection (deliver.ts). */
function urlProblem(hook: Hook): string | null {
  if (hook.allow_private !== true) {
    try {
      readPublicUrl(hook.url);
      return null;
    } catch (err) {
      return `${(err as Error).message} (allow_private: true allows a receiver inside your network)`;
    }
  }
  const url = URL.canParse(hook.url) ? new URL(hook.url) : null;
  if (url === null || (url.protocol !== 'https:' && url.protocol !== 'http:')) return 'must be an http:// or https:// URL';
  if (url.username !== '' || url.password !== '') return 'must not carry credentials';
  return null;
}

/** Hooks at most: each event is kept once per hook, and a scan looks for each hook's thresholds. */
const MAX_HOOKS = 20;

type Issue = { readonly path: (string | number)[]; readonly message: string };

/** What is wrong with the `i`-th hook. */
function hookIssues(hook: Hook, i: number): Issue[] {
  const issues: Issue[] = [];
  const problem = urlProblem(hook);
  if (problem !== null) issues.push({ path: ['webhooks', i, 'url'], message: problem });
  if (hook.secret.startsWith('whsec_') && secretBytes(hook.secret).length < 16) {
    issues.push({ path: ['webhooks', i, 'secret'], message: 'a whsec_ secret is base64 of at least 16 bytes' });
  }
  return issues;
}

export const webhooksConfig: ConfigSection<WebhookSettings> = {
  slot: WEBHOOK_SETTINGS,
  schema: WEBHOOKS_CONFIG_SCHEMA,
  check: (document) => {
    const hooks = documentAs<WebhooksConfig>(document).webhooks ?? [];
    const count: Issue[] = hooks.length > MAX_HOOKS ? [{ path: ['webhooks'], message: `at most ${MAX_HOOKS} webhooks` }] : [];
    // A hook is named by its URL (the outbox's hook id): two with one URL would be one.
    const twice: Issue[] = hooks.flatMap((hook, i) => (hooks.findIndex((other) => other.url === hook.url) < i ? [{ path: ['webhooks', i, 'url'], message: 'the same URL as another webhook: list its events once' }] : []));
    return count.concat(twice, hooks.flatMap(hookIssues));
  },
  resolve: (document) => ({
    hooks: (documentAs<WebhooksConfig>(document).webhooks ?? []).map((hook) => ({
      id: hookId(hook.url),
      url: new URL(hook.url),
      events: new Set<string>(hook.events),
      secret: secretBytes(hook.secret),
      allowPrivate: hook.allow_private ?? false,
      balanceBelow: parseMoney(hook.balance_below ?? WEBHOOK_DEFAULTS.balanceBelow),
      keyExpiringDays: hook.key_expiring_days ?? WEBHOOK_DEFAULTS.keyExpiringDays,
    })),
  }),
};
