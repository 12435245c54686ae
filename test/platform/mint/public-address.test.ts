import { describe, expect, it } from 'vitest';
import {
  NonPublicAddressError,
  publicAddressOf,
  type HostResolver,
  type ResolvedAddress,
} from '../../../src/platform/mint/public-address.js';

/*
 * Which hosts a workspace's own Mint URL may lead to, through a test resolver (no test needs DNS): the bypasses
 * found in review, and more of the same families. `publicAddressOf` is what both the connect form and every
 * connection ask.
 */

const answers = (addresses: string[]): ResolvedAddress[] =>
  addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
/** The names the review used, resolved as public DNS resolves them. */
const REVIEW_DNS: Record<string, string[]> = {
  '127.0.0.1.nip.io': ['127.0.0.1'],
  'localtest.me': ['127.0.0.1', '::1'],
  '169.254.169.254.nip.io': ['169.254.169.254'],
  'rebind.attacker.example': ['93.184.215.14', '10.0.0.5'],
  'mint.acme.example': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
};
const resolver: HostResolver = async (hostname) => {
  const found = REVIEW_DNS[hostname];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return answers(found);
};
const PRODUCTION = { allowLoopback: false };

async function refusal(url: string, policy = PRODUCTION): Promise<string> {
  const error = await publicAddressOf(new URL(url).hostname, policy, resolver, 1_000).then(
    (found) => new Error(`taken: ${found.address}`),
    (caught: unknown) => caught,
  );
  if (!(error instanceof NonPublicAddressError)) throw error;
  return error.message;
}

describe('the hosts a workspace’s own Mint URL may lead to', () => {
  it.each([
    // The review's bypasses.
    ['https://127.0.0.1.nip.io:8443', '127.0.0.1.nip.io resolves to 127.0.0.1, an address of this very host'],
    ['https://localtest.me', 'localtest.me resolves to 127.0.0.1, an address of this very host'],
    ['https://localhost.', 'localhost is a name of this very host'],
    ['https://foo.localhost.', 'foo.localhost is a name of this very host'],
    ['https://[::7f00:1]', '::7f00:1 is an IPv4-compatible IPv6 address'],
    ['https://[64:ff9b::a9fe:a9fe]', '64:ff9b::a9fe:a9fe is the NAT64 form of a link-local address'],
    ['https://198.18.0.1', '198.18.0.1 is a benchmarking address'],
    ['https://224.0.0.1', '224.0.0.1 is a multicast address'],
    ['https://[fec0::1]', 'fec0::1 is a site-local address'],
    ['https://metadata.google.internal', 'metadata.google.internal is the name of a cloud metadata service'],
    // More of the same families.
    ['https://169.254.169.254.nip.io', 'resolves to 169.254.169.254, a link-local address'],
    ['https://rebind.attacker.example', 'rebind.attacker.example resolves to 10.0.0.5, a private network address'],
    ['https://LOCALHOST..', 'localhost is a name of this very host'],
    ['https://api.mint.localhost', 'api.mint.localhost is a name of this very host'],
    ['https://metadata', 'metadata is the name of a cloud metadata service'],
    ['https://metadata.goog', 'metadata.goog is the name of a cloud metadata service'],
    ['https://instance-data.ec2.internal', 'a name of a local network (.internal)'],
    ['https://printer.local', 'a name of a local network (.local)'],
    ['https://router.home.arpa', 'a name of a local network (.home.arpa)'],
    ['https://kubernetes', 'a name without a domain'],
    ['https://0x7f.1', '127.0.0.1 is an address of this very host'],
    ['https://2130706433', '127.0.0.1 is an address of this very host'],
    ['https://0.0.0.0', 'an address of “this network”'],
    ['https://0.1.2.3', 'an address of “this network”'],
    ['https://10.0.0.5', 'a private network address'],
    ['https://172.16.0.1', 'a private network address'],
    ['https://172.31.255.254', 'a private network address'],
    ['https://192.168.1.10', 'a private network address'],
    ['https://100.64.0.1', 'a carrier-grade NAT address'],
    ['https://100.127.255.254', 'a carrier-grade NAT address'],
    ['https://169.254.169.254', 'a link-local address'],
    ['https://198.19.255.255', 'a benchmarking address'],
    ['https://192.0.2.1', 'a documentation address'],
    ['https://198.51.100.7', 'a documentation address'],
    ['https://203.0.113.9', 'a documentation address'],
    ['https://192.0.0.170', 'an address reserved for IETF protocols'],
    ['https://239.255.255.250', 'a multicast address'],
    ['https://240.0.0.1', 'a reserved address'],
    ['https://255.255.255.255', 'the broadcast address'],
    ['https://[::]', 'the unspecified address'],
    ['https://[::1]', 'an address of this very host'],
    ['https://[::ffff:127.0.0.1]', 'an IPv4 address written as IPv6 (IPv4-mapped)'],
    ['https://[::ffff:169.254.169.254]', 'an IPv4 address written as IPv6 (IPv4-mapped)'],
    ['https://[::ffff:8.8.8.8]', 'an IPv4 address written as IPv6 (IPv4-mapped)'],
    ['https://[::10.0.0.1]', 'an IPv4-compatible IPv6 address'],
    ['https://[64:ff9b::7f00:1]', 'the NAT64 form of an address of this very host'],
    ['https://[64:ff9b::10.1.2.3]', 'the NAT64 form of a private network address'],
    ['https://[64:ff9b:1::a00:1]', 'a local-use NAT64 address'],
    ['https://[2002:a9fe:a9fe::1]', 'the 6to4 form of a link-local address'],
    ['https://[2001:db8::1]', 'a documentation address'],
    ['https://[2001::1]', 'a Teredo tunnel address'],
    ['https://[2001:2::1]', 'a benchmarking address'],
    ['https://[fc00::1]', 'a private network address (IPv6 unique local)'],
    ['https://[fd12:3456::1]', 'a private network address (IPv6 unique local)'],
    ['https://[fe80::1]', 'a link-local address'],
    ['https://[febf::1]', 'a link-local address'],
    ['https://[feff::1]', 'a site-local address'],
    ['https://[ff02::1]', 'a multicast address'],
    ['https://[100::1]', 'a discard-only address'],
    ['https://[5f00::1]', 'not a global IPv6 address'],
  ])('refuses %s: %s', async (url, why) => {
    expect(await refusal(url)).toContain(why);
  });

  it('takes public addresses and names that resolve only to them, and gives the first address to connect to', async () => {
    for (const host of ['8.8.8.8', '[2606:4700:4700::1111]', '[64:ff9b::808:808]', '[2002:808:808::1]', '1.1.1.1'])
      expect((await publicAddressOf(host, PRODUCTION, resolver, 1_000)).address).toBe(host.replace(/[[\]]/g, ''));
    expect(await publicAddressOf('mint.acme.example.', PRODUCTION, resolver, 1_000)).toEqual({
      address: '93.184.215.14',
      family: 4,
    });
  });

  it('in development (the operator’s own service on this host) takes this host, and nothing else private', async () => {
    const development = { allowLoopback: true };
    for (const host of ['127.0.0.1', '[::1]', 'localhost', '127.0.0.1.nip.io'])
      await expect(
        publicAddressOf(host, development, async () => answers(['127.0.0.1']), 1_000),
      ).resolves.toBeDefined();
    expect(await refusal('https://10.0.0.5', development)).toContain('a private network address');
    expect(await refusal('https://169.254.169.254.nip.io', development)).toContain('a link-local address');
    expect(await refusal('https://[64:ff9b::7f00:1]', development)).toContain('the NAT64 form');
  });

  it('fails as a lookup fails when the name has no address, or the lookup takes too long', async () => {
    await expect(publicAddressOf('mint.acme.example', PRODUCTION, async () => [], 1_000)).rejects.toMatchObject({
      code: 'ENOTFOUND',
    });
    const never: HostResolver = () => new Promise(() => undefined);
    await expect(publicAddressOf('mint.acme.example', PRODUCTION, never, 50)).rejects.toMatchObject({
      code: 'EAI_AGAIN',
    });
    const garbage: HostResolver = async () => [{ address: 'not-an-address', family: 4 }];
    await expect(publicAddressOf('mint.acme.example', PRODUCTION, garbage, 1_000)).rejects.toThrow(
      'mint.acme.example resolves to not-an-address, not an IP address',
    );
  });
});
