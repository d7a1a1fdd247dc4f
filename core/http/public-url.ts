// The check of a link a caller hands the gateway for an upstream to download (a file to register, a frame to start
// from): the gateway must not become a way to make the provider fetch internal addresses, and inputs the upstream
// refuses anyway fail here, clearly.

import { Resolver } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { GatewayError } from '../errors.js';

/** The addresses a host name resolves to. */
export type HostResolver = (hostname: string) => Promise<readonly string[]>;

/**
 * DNS through c-ares (dns.Resolver), not getaddrinfo (dns.lookup): a lookup holds one of libuv's four pool threads
 * until the system resolver gives up, whatever the caller's timeout, so names made to answer slowly could stall every
 * other lookup of the process (the upstreams' connects among them). A Resolver of its own per check, bounded by its
 * timeout and cancelled at the end, holds no thread. Both families are asked; one failing (no AAAA) is no failure.
 */
export const systemResolver: HostResolver = async (hostname) => {
  const resolver = new Resolver({ timeout: 2000, tries: 1 });
  try {
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
    const addresses = [...(v4.status === 'fulfilled' ? v4.value : []), ...(v6.status === 'fulfilled' ? v6.value : [])];
    if (addresses.length === 0) throw new Error('not resolved');
    return addresses;
  } finally {
    resolver.cancel();
  }
};

const MAX_LENGTH = 2048;
const NOT_PUBLIC = 'loopback, private, link-local, CGNAT, multicast, reserved or metadata';
const UPLOAD_IT = 'upload the file somewhere public and send its https:// link';

const NON_PUBLIC_IPV4: readonly (readonly [string, number])[] = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // CGNAT: the provider's own carrier network
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, with the clouds' metadata service at 169.254.169.254
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation (TEST-NET-1, -2, -3)
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['192.168.0.0', 16],
  ['192.88.99.0', 24], // the former 6to4 relay anycast
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, with the broadcast 255.255.255.255
];

// Mapped (::ffff:0:0/96), NAT64 (64:ff9b::/96) and 6to4 (2002::/16) addresses are judged by the IPv4 address they carry.
const NON_PUBLIC_IPV6: readonly (readonly [string, number])[] = [
  ['::', 96], // unspecified, loopback, and the deprecated IPv4-compatible form some stacks still route
  ['100::', 64], // discard-only
  ['2001::', 32], // Teredo: a tunnel whose far end is not what the address says
  ['2001:db8::', 32], // documentation
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215): translated inside someone's network
  ['fc00::', 7], // unique local, with AWS's metadata service at fd00:ec2::254
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated, still routed inside some networks)
  ['ff00::', 8], // multicast
];

// Names that only mean something inside a network; a resolver here may not answer as the upstream's would.
const LOCAL_SUFFIXES: readonly string[] = ['.localhost', '.local', '.internal', '.localdomain', '.home.arpa', '.lan'];

const refused = (message: string): GatewayError => new GatewayError('GW_ERR_URL_REFUSED', message, { param: 'URL' });

/**
 * The URL to send upstream (as WHATWG normalises it), or a GW_ERR_URL_REFUSED naming why not. A host name is
 * resolved with `resolve` within `timeoutMs`; it is refused when any address it resolves to is not public.
 */
export async function checkPublicUrl(value: unknown, resolve: HostResolver, timeoutMs = 3000): Promise<string> {
  const url = readPublicUrl(value);
  await checkHost(url.hostname, resolve, timeoutMs);
  // As parsed here (WHATWG's normal form): the upstream then reads the host that was checked, not its own reading of
  // the caller's text.
  return url.href;
}

/**
 * Every rule of checkPublicUrl that needs no DNS: the link parsed, or a GW_ERR_URL_REFUSED. Its host is a public
 * IP literal or a name still to be resolved (checkHost), so a caller that checks many links reads them all first.
 */
export function readPublicUrl(value: unknown): URL {
  if (typeof value !== 'string' || value.trim() === '') throw refused('URL must be a public https:// link to the file.');
  refuseInlineContent(value);
  if (value.length > MAX_LENGTH) throw refused(`URL is longer than ${MAX_LENGTH} characters.`);
  // WHATWG drops tabs and newlines and reads a backslash as a slash; the upstream's parser may not, and the host it
  // sees would then differ from the one checked here.
  if (/[\s\\\u0000-\u001f\u007f]/.test(value)) throw refused('URL contains whitespace, a control character or a backslash: percent-encode them.');
  const url = URL.canParse(value) ? new URL(value) : null;
  if (url === null) throw refused('URL is not a valid URL: send a full https:// link.');
  if (url.protocol !== 'https:') throw refused('URL must use https://.');
  if (url.username !== '' || url.password !== '') throw refused('URL contains credentials (a user or a password), which are not accepted.');
  namesHost(url.hostname);
  return url;
}

/** The file itself where a link was asked for: a data URI, a local path, or bare base64. */
function refuseInlineContent(value: string): void {
  // Leading spaces and controls are what WHATWG strips before it reads the scheme.
  const scheme = /^[\u0000-\u0020]*([a-z][a-z0-9+.-]*):/i.exec(value)?.[1]?.toLowerCase();
  if (scheme === 'data') throw refused(`URL is a data: URI, which is not accepted: ${UPLOAD_IT}.`);
  if (scheme === 'file') throw refused(`URL points to a local file, which is not accepted: ${UPLOAD_IT}.`);
  if (scheme !== undefined) return;
  // JPEG, PNG, GIF and WebP as base64 start this way; any other long run of base64 is no link either.
  if (/^\s*(\/9j\/|iVBOR|R0lGOD|UklGR)/.test(value) || /[A-Za-z0-9+/]{64,}/.test(value.slice(0, 4096))) {
    throw refused(`URL is base64 content, which is not accepted: ${UPLOAD_IT}.`);
  }
}

/** Refuses (GW_ERR_URL_REFUSED) a host that is an internal address or a name resolving to one. */
export async function checkHost(hostname: string, resolve: HostResolver, timeoutMs: number): Promise<void> {
  if (!namesHost(hostname)) return;
  const addresses = await resolveWithin(hostname, resolve, timeoutMs);
  if (addresses === null) throw refused(`URL host ${hostname} could not be resolved.`);
  // Any, not only: the upstream picks one of the addresses itself, and a name with one internal address can be
  // made to fetch it.
  const list = nonPublicList();
  if (addresses.some((address) => isNonPublic(address, list))) throw refused(`URL host ${hostname} resolves to a non-public address (${NOT_PUBLIC}).`);
}

/**
 * Judges a host without DNS: refuses (GW_ERR_URL_REFUSED) an internal IP literal or a local name; true when it is
 * a name whose addresses are still to be checked, false for a public IP literal.
 */
export function namesHost(hostname: string): boolean {
  const literal = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  if (isIP(literal) !== 0) {
    if (isNonPublic(literal, nonPublicList())) throw refused(`URL points to ${literal}, which is not a public address (${NOT_PUBLIC}).`);
    return false;
  }
  const name = hostname.replace(/\.+$/, '');
  // A single label is completed by the upstream's search domains, into a name inside its network.
  if (!name.includes('.') || name === 'localhost' || LOCAL_SUFFIXES.some((suffix) => name.endsWith(suffix))) {
    throw refused(`URL host ${hostname} is a local name, not a public one.`);
  }
  return true;
}

/** The addresses, or null when the resolver failed, answered nothing or took longer than `timeoutMs`. */
async function resolveWithin(hostname: string, resolve: HostResolver, timeoutMs: number): Promise<readonly string[] | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<null>((settle) => {
    timer = setTimeout(settle, timeoutMs, null);
  });
  try {
    // Through then(), a resolver that throws synchronously is a failure like any other.
    const addresses = await Promise.race([Promise.resolve().then(() => resolve(hostname)), expired]);
    return Array.isArray(addresses) && addresses.length > 0 ? addresses : null;
  } catch {
    // The resolver's own text stays out of the message: it can name servers and files of the gateway's host.
    return null;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether `address` (an IP literal) is a public one: what a connection the gateway makes itself (a webhook's) checks
 * at connect time, where DNS answered, so a name cannot be made to resolve elsewhere between a check and the connect.
 */
export function isPublicAddress(address: string): boolean {
  return !isNonPublic(address, nonPublicList());
}

/** Built per check: a BlockList is a mutable object, and core keeps none at module level. */
function nonPublicList(): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of NON_PUBLIC_IPV4) list.addSubnet(network, prefix, 'ipv4');
  for (const [network, prefix] of NON_PUBLIC_IPV6) list.addSubnet(network, prefix, 'ipv6');
  return list;
}

function isNonPublic(address: string, list: BlockList): boolean {
  // A zone id (fe80::1%eth0) names an interface of the resolving host; the address is what is judged.
  const bare = address.split('%')[0] ?? '';
  const version = isIP(bare);
  if (version === 4) return list.check(bare, 'ipv4');
  // What is not an address cannot be shown to be public.
  if (version !== 6) return true;
  const groups = hextetsOf(bare);
  if (groups === null) return true;
  const carried = carriedIpv4(groups);
  return carried === null ? list.check(bare, 'ipv6') : list.check(carried, 'ipv4');
}

/** The eight 16-bit groups of an IPv6 address, or null when WHATWG cannot read it. */
function hextetsOf(address: string): readonly number[] | null {
  // WHATWG writes an IPv6 address one way: lower case, hex only (no dotted tail), the longest zero run as '::'.
  const host = URL.canParse(`http://[${address}]/`) ? new URL(`http://[${address}]/`).hostname.slice(1, -1) : null;
  if (host === null) return null;
  const [head = '', tail] = host.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros: readonly string[] = Array.from({ length: 8 - left.length - right.length }, () => '0');
  return [...left, ...zeros, ...right].map((group) => parseInt(group, 16));
}

/** The IPv4 address a mapped (::ffff:a.b.c.d), translated (::ffff:0:a.b.c.d), NAT64 (64:ff9b::a.b.c.d) or 6to4 (2002:AABB:CCDD::) address carries. */
function carriedIpv4(groups: readonly number[]): string | null {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = groups;
  const dotted = (high: number, low: number): string => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0xffff) return dotted(g6, g7);
  // SIIT's IPv4-translated form, ::ffff:0:a.b.c.d.
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0xffff && g5 === 0) return dotted(g6, g7);
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return dotted(g6, g7);
  if (g0 === 0x2002) return dotted(g1, g2);
  return null;
}
