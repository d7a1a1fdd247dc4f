// A key's IP allow-list: CIDRs and single addresses of both families; an IPv4 client on an IPv6 socket
// (::ffff:a.b.c.d) matched as IPv4; anything that is not an address or a CIDR refused when parsed, never allowed.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AddressList, clientAddressOf, parseCidr } from '../../../core/keys/address-list.js';

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

  it('the client behind trusted proxies: the nearest X-Forwarded-For address that is not a proxy; nothing believed otherwise', () => {
    const proxies = new AddressList(['10.0.0.0/8']);
    assert.equal(clientAddressOf('10.0.0.5', '203.0.113.7', proxies), '203.0.113.7');
    assert.equal(clientAddressOf('10.0.0.5', '198.51.100.1, 203.0.113.7, 10.0.0.9', proxies), '203.0.113.7', 'what a client wrote to the left is not believed');
    assert.equal(clientAddressOf('192.0.2.1', '203.0.113.7', proxies), '192.0.2.1', 'a peer that is no trusted proxy is the client');
    assert.equal(clientAddressOf('10.0.0.5', '203.0.113.7', null), '10.0.0.5', 'no trusted proxies: the peer');
    assert.equal(clientAddressOf('10.0.0.5', undefined, proxies), '10.0.0.5');
    assert.equal(clientAddressOf('10.0.0.5', 'not-an-ip', proxies), '10.0.0.5');
    assert.equal(clientAddressOf('10.0.0.5', '10.0.0.7, 10.0.0.8', proxies), '10.0.0.5', 'all proxies: the peer');
    assert.equal(clientAddressOf('::ffff:10.0.0.5', '2001:db8::1', proxies), '2001:db8::1');
  });

  it('refuses zone ids', () => {
    assert.equal(parseCidr('fe80::1%eth0'), null);
  });
});
