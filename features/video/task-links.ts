// The links of a video task, read once where the caller wrote them: Ark fetches every URL it is given and resolves every
// `asset://` link it finds, so each is held to CreateAsset's rules (core/http/public-url.ts) or to the asset library's
// ownership (asset-links.ts) before anything is written or sent. Read here without DNS; the host names are resolved by
// checkTaskHosts at submission.

import { checkHost, readPublicUrl, type HostResolver } from '../../core/http/public-url.js';
import { GatewayError } from '../../core/errors.js';

/** What a task links to: `asset://` ids, each once, in order, and host names still to resolve with the field naming each. */
export interface TaskLinks {
  readonly assetIds: string[];
  readonly hosts: Map<string, string>;
}

/** Asset ids as the library makes them (`asset-20260410114236-8cdfz`). */
const ASSET_LINK = /^asset:\/\/([A-Za-z0-9][A-Za-z0-9_-]{0,127})$/i;
/** A scheme that is Ark's asset one, however written. */
const ASSET_SCHEME = /^asset:/i;
/** `asset://` anywhere in a text, however written, up to what ends a link in prose. */
const ASSET_IN_TEXT = /asset:\/\/([^\s"'<>()[\]{}|\\^`,;]*)/gi;
/** Inline media Ark takes in place of a link: nothing is fetched. */
const DATA_URL = /^data:(?:image|video|audio)\/[a-z0-9.+-]{1,32};base64,[A-Za-z0-9+/]+={0,2}$/;
const MAX_DATA_URL = 10_000_000;
/** Each host name costs DNS queries before the task is taken: a request may not make the gateway ask for many. */
const MAX_HOSTS = 8;

export function newTaskLinks(): TaskLinks {
  return { assetIds: [], hosts: new Map() };
}

function addAsset(links: TaskLinks, id: string): void {
  if (!links.assetIds.includes(id)) links.assetIds.push(id);
}

/** A URL refusal naming the caller's field. */
function refusedAt(param: string, err: unknown): unknown {
  if (!(err instanceof GatewayError) || err.code !== 'GW_ERR_URL_REFUSED') return err;
  return new GatewayError('GW_ERR_URL_REFUSED', `Invalid '${param}': ${err.message}`, { param });
}

/**
 * The URL to send for a media field: an `asset://` link (its scheme written Ark's way), a base64 `data:` URL of an
 * image, video or audio, or a public https:// link in WHATWG's normal form. Anything else is refused, naming `param`.
 */
export function readMediaUrl(value: unknown, param: string, links: TaskLinks): string {
  if (typeof value === 'string') {
    const asset = ASSET_LINK.exec(value);
    if (asset !== null) {
      const id = asset[1] ?? '';
      addAsset(links, id);
      return `asset://${id}`;
    }
    if (ASSET_SCHEME.test(value)) {
      throw new GatewayError('GW_ERR_URL_REFUSED', `Invalid '${param}': an asset link is asset://<Id>, the Id as the asset library gave it.`, { param });
    }
    if (value.length <= MAX_DATA_URL && DATA_URL.test(value)) return value;
  }
  try {
    const url = readPublicUrl(value);
    const host = url.hostname;
    if (!links.hosts.has(host)) {
      if (links.hosts.size >= MAX_HOSTS) throw new GatewayError('GW_ERR_URL_REFUSED', `URL names a host beyond the ${MAX_HOSTS} one task may link to: put the files on fewer hosts, or in the asset library.`);
      links.hosts.set(host, param);
    }
    return url.href;
  } catch (err) {
    throw refusedAt(param, err);
  }
}

/** A text Ark reads (the prompt, a text item): any `asset://` link in it is the caller's to use, or the task is refused. */
export function scanText(text: string, links: TaskLinks): void {
  if (!text.includes(':')) return;
  for (const match of text.matchAll(ASSET_IN_TEXT)) {
    // Prose ends a sentence after a link ("use asset://x."), and may name the scheme alone: neither is an id.
    const id = (match[1] ?? '').replace(/[.:!?]+$/, '').slice(0, 128);
    if (id !== '') addAsset(links, id);
  }
}

/** Resolves the links' host names: any that is not public refuses the task, naming the field that gave it. */
export async function checkTaskHosts(hosts: ReadonlyMap<string, string>, resolve: HostResolver): Promise<void> {
  await Promise.all(
    [...hosts].map(async ([host, param]) => {
      try {
        await checkHost(host, resolve, 3000);
      } catch (err) {
        throw refusedAt(param, err);
      }
    }),
  );
}
