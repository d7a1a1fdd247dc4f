// A key's IP allow-list: CIDRs and single addresses of both families; an IPv4 client on an IPv6 socket
// (::ffff:a.b.c.d) matched as IPv4; anything that is not an address or a CIDR refused when parsed, never allowed.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AddressList, parseCidr } from '../../../core/keys/address-list.js';

describe('AddressList', () => {
  it('matches IPv4 and IPv6 CIDRs and single addresses', () => {
    const list = new AddressList(['203.0.113.0/24', '198.51.100.7', '2001:db8::/32']);
    assert.equal(list.allows('203.0.113.200'), true);
    assert.equal(list.allows('203.0.114.1'), false);
    assert.equal(list.allows('198.51.100.7'), true);
    assert.equal(list.allows('198.51.100.8'), false);
    assert.equal(list.allows('2001:db8:1::5'), true);
    assert.equal(list.allows('2001:db9::1'), false);
    assert.equal(list.allows('::ffff:203.0.113.9'), true, 'an IPv4 client seen on an IPv6 socket');
    assert.equal(list.allows(''), false, 'an unknown address is not allowed');
  });

  it('parses what it may hold, and nothing else', () => {
    assert.deepEqual(parseCidr('10.0.0.0/8'), { address: '10.0.0.0', prefix: 8, family: 'ipv4' });
    assert.deepEqual(parseCidr('::1'), { address: '::1', prefix: 128, family: 'ipv6' });
    for (const bad of ['10.0.0.0/33', '10.0.0.300', '10.0.0.0/', '10.0.0.0/8/8', 'example.com', '', '::1/129', '10.0.0.0/-1', '10.0.0.0/ 8']) {
      assert.equal(parseCidr(bad), null, bad);
    }
  });
});
