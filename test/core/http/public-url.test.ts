// The asset URL check: every kind of refusal (no link, too long, inline content, wrong scheme, credentials, a
// non-public IP literal, a name resolving inside a network, a resolver that fails or hangs) and the public links that
// pass. No real DNS: each case injects a resolver with fixed answers.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkPublicUrl, type HostResolver } from '../../../core/http/public-url.js';
import { GatewayError } from '../../../core/errors.js';

const answering =
  (...addresses: string[]): HostResolver =>
  async () =>
    addresses;

/** A resolver that answers publicly and remembers what it was asked, to show IP literals are never looked up. */
function recording(): { readonly resolve: HostResolver; readonly asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    resolve: async (hostname) => {
      asked.push(hostname);
      return ['93.184.215.14'];
    },
  };
}

async function assertRefused(value: unknown, resolve: HostResolver, words: RegExp, timeoutMs?: number): Promise<GatewayError> {
  let caught: unknown;
  await assert.rejects(checkPublicUrl(value, resolve, timeoutMs), (error: unknown) => {
    caught = error;
    return true;
  });
  assert.ok(caught instanceof GatewayError, String(value));
  assert.equal(caught.code, 'GW_ERR_URL_REFUSED');
  assert.equal(caught.status, 400);
  assert.equal(caught.param, 'URL');
  assert.match(caught.message, /^URL /);
  assert.match(caught.message, words, `${String(value).slice(0, 80)}: ${caught.message}`);
  return caught;
}

describe('checkPublicUrl: what is no link at all', () => {
  it('refuses a value that is not a string, or empty', async () => {
    for (const value of [undefined, null, 42, {}, ['https://example.com/a.png'], '', '   ']) {
      await assertRefused(value, answering('93.184.215.14'), /must be a public https:\/\/ link to the file/);
    }
  });

  it('names the length limit past 2048 characters, and takes 2048', async () => {
    const base = 'https://example.com/';
    await assertRefused(base + 'a'.repeat(2049 - base.length), answering('93.184.215.14'), /longer than 2048 characters/);
    const longest = base + 'a'.repeat(2048 - base.length);
    assert.equal(await checkPublicUrl(longest, answering('93.184.215.14')), longest);
  });

  it('refuses data URIs, even long ones, and says to upload the file', async () => {
    await assertRefused('data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk', answering(), /data: URI.*not accepted.*upload/);
    await assertRefused(' DATA:image/jpeg;base64,' + 'A'.repeat(5000), answering(), /data: URI/);
  });

  it('refuses bare base64', async () => {
    for (const value of ['/9j/4AAQSkZJRgABAQAAAQABAAD', 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB', 'R0lGODlhAQABAIAAAP', 'Q'.repeat(64) + '==']) {
      await assertRefused(value, answering(), /base64.*not accepted/);
    }
  });

  it('refuses local files', async () => {
    await assertRefused('file:///etc/passwd', answering(), /local file.*not accepted/);
    await assertRefused('FILE://localhost/etc/passwd', answering(), /local file/);
  });
});

describe('checkPublicUrl: the form of the link', () => {
  it('asks for https:// for every other scheme', async () => {
    for (const value of ['http://example.com/cat.png', 'ftp://example.com/cat.png', 'asset://asset-2024', 'javascript:alert(1)', 'example.com:443/a.png']) {
      await assertRefused(value, answering('93.184.215.14'), /^URL must use https:\/\/\.$/);
    }
  });

  it('says when it is not a URL', async () => {
    for (const value of ['example.com/cat.png', 'https://', 'https://[::1/', 'https://exa%mple.com/', 'https://1.2.3.4.5/']) {
      await assertRefused(value, answering('93.184.215.14'), /is not a valid URL/);
    }
  });

  it('refuses credentials', async () => {
    for (const value of ['https://user:pw@example.com/a.png', 'https://user@example.com/a.png', 'https://:pw@example.com/a.png', 'https://example.com@127.0.0.1/']) {
      await assertRefused(value, answering('93.184.215.14'), /credentials.*not accepted/);
    }
  });

  it('refuses what parsers read differently: whitespace, controls, backslashes', async () => {
    for (const value of ['https://example.com\\@127.0.0.1/', 'https://127.0.0.\n1/', 'https://exa\tmple.com/', 'https://example.com/a b.png']) {
      await assertRefused(value, answering('93.184.215.14'), /whitespace, a control character or a backslash/);
    }
  });
});

describe('checkPublicUrl: IP literals', () => {
  it('refuses non-public addresses, in every form WHATWG reads, without resolving', async () => {
    const { resolve, asked } = recording();
    const literals = [
      ['https://127.0.0.1/', '127.0.0.1'],
      ['https://10.0.0.1/', '10.0.0.1'],
      ['https://[::1]/', '::1'],
      ['https://169.254.169.254/latest/meta-data/', '169.254.169.254'],
      ['https://[::ffff:10.0.0.1]/', '::ffff:a00:1'],
      ['https://2130706433/', '127.0.0.1'],
      ['https://0x7f.1/', '127.0.0.1'],
      ['https://0177.0.0.1/', '127.0.0.1'],
      ['https://%31%32%37.0.0.1/', '127.0.0.1'],
      ['https://[64:ff9b::10.0.0.1]/', '64:ff9b::a00:1'],
      ['https://[2002:7f00:1::]/', '2002:7f00:1::'],
      ['https://[fd00:ec2::254]/', 'fd00:ec2::254'],
    ] as const;
    for (const [value, shown] of literals) {
      const error = await assertRefused(value, resolve, /which is not a public address \(loopback, private, link-local, CGNAT, multicast, reserved or metadata\)/);
      assert.ok(error.message.includes(`URL points to ${shown},`), error.message);
    }
    const ranges = [
      '0.0.0.0', '0.255.255.255', '100.64.0.1', '100.127.255.254', '172.16.0.1', '172.31.255.255', '192.0.0.8', '192.0.2.1', '192.168.0.1', '198.18.0.1',
      '198.19.255.255', '198.51.100.7', '203.0.113.9', '224.0.0.1', '239.255.255.250', '240.0.0.1', '255.255.255.255',
      '[::]', '[::127.0.0.1]', '[fc00::1]', '[fe80::1]', '[febf::1]', '[fec0::1]', '[ff02::1]', '[2001:db8::1]', '[::ffff:169.254.169.254]', '[64:ff9b::c0a8:105]',
      '192.88.99.1', '[::ffff:0:7f00:1]', '[::ffff:0:a00:1]',
    ];
    for (const host of ranges) await assertRefused(`https://${host}/a.png`, resolve, /not a public address/);
    assert.deepEqual(asked, []);
  });

  it('lets public addresses through without resolving, at the edges of the ranges too', async () => {
    const { resolve, asked } = recording();
    for (const value of [
      'https://8.8.8.8/x.png',
      'https://[2606:4700::1111]/a.png',
      'https://172.32.0.1/a.png',
      'https://100.128.0.1/a.png',
      'https://198.20.0.1/a.png',
      'https://11.0.0.1/a.png',
      'https://[::ffff:8.8.8.8]/a.png',
      'https://[64:ff9b::8.8.8.8]/a.png',
    ]) {
      assert.equal(await checkPublicUrl(value, resolve), new URL(value).href, 'the normal form goes upstream');
    }
    assert.deepEqual(asked, []);
  });
});

describe('checkPublicUrl: host names', () => {
  it('resolves a public name and returns the URL in its normal form', async () => {
    const { resolve, asked } = recording();
    assert.equal(await checkPublicUrl('https://example.com/cat.png', resolve), 'https://example.com/cat.png');
    const mixedCase = 'https://CDN.Example.com:8443/cat.png?x=1#top';
    assert.equal(await checkPublicUrl(mixedCase, answering('93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c')), 'https://cdn.example.com:8443/cat.png?x=1#top');
    assert.deepEqual(asked, ['example.com']);
  });

  it('refuses a name resolving to a non-public address, and one with any such address among public ones', async () => {
    const cases: readonly (readonly string[])[] = [
      ['192.168.1.5'],
      ['93.184.215.14', '10.0.0.7'],
      ['::1'],
      ['::ffff:127.0.0.1'],
      ['fe80::1%eth0'],
      ['2606:4700::1111', 'fd00:ec2::254'],
    ];
    for (const addresses of cases) {
      const error = await assertRefused('https://images.example.com/a.png', answering(...addresses), /host images\.example\.com resolves to a non-public address/);
      for (const address of addresses) assert.ok(!error.message.includes(address), error.message);
    }
  });

  it('refuses an answer that is not an address', async () => {
    await assertRefused('https://images.example.com/a.png', answering('93.184.215.14', 'not-an-ip'), /resolves to a non-public address/);
  });

  it('says a name could not be resolved when the resolver rejects, answers nothing or hangs, and never repeats its text', async () => {
    const rejecting: HostResolver = async () => {
      throw new Error('getaddrinfo ENOTFOUND secret-resolver.corp at /etc/resolv.conf');
    };
    const throwing: HostResolver = () => {
      throw new Error('secret sync failure');
    };
    const hanging: HostResolver = () => new Promise(() => undefined);
    for (const [resolve, timeoutMs] of [[rejecting, 3000], [throwing, 3000], [answering(), 3000], [hanging, 20]] as const) {
      const error = await assertRefused('https://nowhere.example.com/a.png', resolve, /^URL host nowhere\.example\.com could not be resolved\.$/, timeoutMs);
      assert.ok(!error.message.includes('secret'));
    }
  });

  it('refuses local names without resolving them', async () => {
    const { resolve, asked } = recording();
    for (const host of ['localhost', 'LOCALHOST.', 'app.localhost', 'printer.local', 'metadata.google.internal', 'db.localdomain', 'nas.home.arpa', 'intranet']) {
      await assertRefused(`https://${host}/a.png`, resolve, /is a local name, not a public one/);
    }
    assert.deepEqual(asked, []);
  });
});
