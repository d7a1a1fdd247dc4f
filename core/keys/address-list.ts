// A key's IP allow-list: CIDRs (or single addresses) of IPv4 and IPv6, matched with Node's own BlockList. An IPv4
// client seen through an IPv6 socket (::ffff:203.0.113.7) is matched as the IPv4 address it is.

import { BlockList, isIP } from 'node:net';

export interface Cidr {
  readonly address: string;
  readonly prefix: number;
  readonly family: 'ipv4' | 'ipv6';
}

/** `10.0.0.0/8`, `2001:db8::/32`, or one address (its whole width); null when it is none of these. */
export function parseCidr(text: string): Cidr | null {
  const slash = text.indexOf('/');
  const address = slash < 0 ? text : text.slice(0, slash);
  // A zone id (fe80::1%eth0) names an interface of one host, not an address a client comes from.
  if (address.includes('%')) return null;
  const version = isIP(address);
  if (version === 0) return null;
  const width = version === 4 ? 32 : 128;
  const prefixText = slash < 0 ? String(width) : text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = Number(prefixText);
  return prefix <= width ? { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' } : null;
}

/** A compiled allow-list: whether an address may use the key. */
export class AddressList {
  readonly #list = new BlockList();

  constructor(cidrs: readonly string[]) {
    for (const text of cidrs) {
      const cidr = parseCidr(text);
      if (cidr !== null) this.#list.addSubnet(cidr.address, cidr.prefix, cidr.family);
    }
  }

  allows(address: string): boolean {
    const mapped = address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
    const version = isIP(mapped);
    return version !== 0 && this.#list.check(mapped, version === 4 ? 'ipv4' : 'ipv6');
  }
}

/**
 * The client's address: the TCP peer's, or, when the peer is a trusted proxy, the nearest address in
 * X-Forwarded-For (read from the right) that is not itself a trusted proxy. Anything a client wrote further left is
 * never believed.
 */
export function clientAddressOf(peer: string, forwardedFor: string | string[] | undefined, trusted: AddressList | null): string {
  if (trusted === null || forwardedFor === undefined || !trusted.allows(peer)) return peer;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor).split(',').map((h) => h.trim());
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i] ?? '';
    if (isIP(hop) === 0) return peer;
    if (!trusted.allows(hop)) return hop;
  }
  return peer;
}
