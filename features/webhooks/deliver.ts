// One delivery attempt: the event's bytes POSTed to its hook, signed; a 2xx is delivered, anything else (a status, a
// refused address, a timeout) is a failure worded without the receiver's body. Unless the hook allows private
// addresses, every connection checks the addresses DNS gave before it connects (a name cannot point the gateway at
// its own network after the config was checked: DNS rebinding).

import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { Agent, request } from 'undici';
import { isPublicAddress } from '../../core/http/public-url.js';
import type { WebhookTarget } from './config.js';
import { signedHeaders } from './signature.js';

/** How long one attempt may take, from the connect to the end of the answer's headers. */
const ATTEMPT_TIMEOUT_MS = 10_000;

export type DeliveryOutcome = { readonly ok: true; readonly status: number } | { readonly ok: false; readonly error: string };

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** How a host name's addresses are found: dns.lookup with `all` (a test's own, to name an address). */
export type AllLookup = (hostname: string, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

const systemLookup: AllLookup = (hostname, callback) => dnsLookup(hostname, { all: true }, callback);

/** A connection's lookup that fails rather than answer an address that is not public. */
function publicLookup(lookup: AllLookup) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => lookup(hostname, (err, addresses) => {
    if (err !== null) {
      callback(err, []);
      return;
    }
    const refused = addresses.find((a) => !isPublicAddress(a.address));
    if (refused !== undefined || addresses.length === 0) {
      callback(Object.assign(new Error(`${hostname} resolves to a non-public address`), { code: 'ENOTPUBLIC' }), []);
      return;
    }
    const family = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
    if (options.all === true) callback(null, family);
    else callback(null, family[0]?.address ?? '', family[0]?.family);
  });
}

/** The connection pools: one that checks addresses, one for hooks that allow private ones. Closed with the sender. */
export class Deliverer {
  readonly #checked: Agent;
  readonly #open = new Agent({ connect: { timeout: ATTEMPT_TIMEOUT_MS }, keepAliveTimeout: 4_000 });

  constructor(lookup: AllLookup = systemLookup) {
    this.#checked = new Agent({ connect: { lookup: publicLookup(lookup), timeout: ATTEMPT_TIMEOUT_MS }, keepAliveTimeout: 4_000 });
  }

  async deliver(hook: WebhookTarget, id: string, body: string, atMs: number): Promise<DeliveryOutcome> {
    try {
      const res = await request(hook.url, {
        method: 'POST',
        dispatcher: hook.allowPrivate ? this.#open : this.#checked,
        headers: { 'content-type': 'application/json', 'user-agent': 'llm-gateway-webhooks', ...signedHeaders(hook.secret, id, atMs, body) },
        body,
        headersTimeout: ATTEMPT_TIMEOUT_MS,
        bodyTimeout: ATTEMPT_TIMEOUT_MS,
      });
      // undici's request follows no redirect: a 3xx is a failure, the receiver is the URL the operator wrote. What the
      // receiver said is not kept (it could be large, or anything): only its status.
      await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
      return res.statusCode >= 200 && res.statusCode < 300 ? { ok: true, status: res.statusCode } : { ok: false, error: `HTTP ${res.statusCode}` };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      return { ok: false, error: code === undefined ? 'transport error' : `transport error (${code})` };
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.#checked.close(), this.#open.close()]);
  }
}
