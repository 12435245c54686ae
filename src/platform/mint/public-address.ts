import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** One address a host name resolves to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address a host name resolves to, as a connection would find them. Injected, so tests need no DNS. */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system's resolver (getaddrinfo: /etc/hosts, then DNS), every address, in the order it gives them. */
export const systemResolver: HostResolver = async (hostname) => {
  const found = await lookup(hostname, { all: true, verbatim: true });
  return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

/** What a workspace's own Mint URL may reach. */
export interface AddressPolicy {
  /**
   * This host's own addresses are taken too: a development setup, where the operator's own MINT_API_BASE_URL
   * is on this host (the mock service), so a workspace may name a mock on this host as well.
   */
  allowLoopback: boolean;
}

/** Why an address or name is not a public one: words for a workspace admin, and whether it is this host. */
interface NotPublic {
  why: string;
  loopback: boolean;
}

const PRIVATE = 'a private network address';
const DOCUMENTATION = 'a documentation address, not in use on the internet';
const BENCHMARKING = 'a benchmarking address, for test networks only';
const LINK_LOCAL = 'a link-local address (where cloud metadata services answer)';
const MULTICAST = 'a multicast address';
const LOOPBACK = 'an address of this very host (loopback)';

/** IPv4 special-purpose ranges (IANA's registry), none of them a public service. */
const IPV4_RANGES: ReadonlyArray<readonly [network: string, prefix: number, why: string]> = [
  ['0.0.0.0', 8, 'an address of “this network” (0.0.0.0/8), which reaches this very host'],
  ['10.0.0.0', 8, PRIVATE],
  ['100.64.0.0', 10, 'a carrier-grade NAT address, shared inside a provider’s network'],
  ['127.0.0.0', 8, LOOPBACK],
  ['169.254.0.0', 16, LINK_LOCAL],
  ['172.16.0.0', 12, PRIVATE],
  ['192.0.0.0', 24, 'an address reserved for IETF protocols'],
  ['192.0.2.0', 24, DOCUMENTATION],
  ['192.88.99.0', 24, 'a 6to4 relay address'],
  ['192.168.0.0', 16, PRIVATE],
  ['198.18.0.0', 15, BENCHMARKING],
  ['198.51.100.0', 24, DOCUMENTATION],
  ['203.0.113.0', 24, DOCUMENTATION],
  ['224.0.0.0', 4, MULTICAST],
  ['255.255.255.255', 32, 'the broadcast address'],
  ['240.0.0.0', 4, 'a reserved address (240.0.0.0/4)'],
];

/** IPv6 special-purpose ranges; what is left outside 2000::/3 (global unicast) is refused as well. */
const IPV6_RANGES: ReadonlyArray<readonly [network: string, prefix: number, why: string]> = [
  ['::', 128, 'the unspecified address (::), which reaches this very host'],
  ['::1', 128, LOOPBACK],
  ['::ffff:0:0', 96, 'an IPv4 address written as IPv6 (IPv4-mapped)'],
  ['::', 96, 'an IPv4-compatible IPv6 address (it carries an IPv4 address)'],
  ['::ffff:0:0:0', 96, 'an IPv4-translated address'],
  ['64:ff9b:1::', 48, 'a local-use NAT64 address, translated inside a private network'],
  ['100::', 64, 'a discard-only address'],
  ['2001::', 32, 'a Teredo tunnel address'],
  ['2001:2::', 48, BENCHMARKING],
  ['2001:10::', 28, 'an ORCHID identifier, not routable'],
  ['2001:20::', 28, 'an ORCHID identifier, not routable'],
  ['2001:db8::', 32, DOCUMENTATION],
  ['3fff::', 20, DOCUMENTATION],
  ['fc00::', 7, 'a private network address (IPv6 unique local)'],
  ['fe80::', 10, LINK_LOCAL],
  ['fec0::', 10, 'a site-local address (a private network)'],
  ['ff00::', 8, MULTICAST],
];

interface Rule {
  list: BlockList;
  why: string;
  loopback: boolean;
}

function rule(network: string, prefix: number, family: 'ipv4' | 'ipv6', why: string): Rule {
  const list = new BlockList();
  list.addSubnet(network, prefix, family);
  return { list, why, loopback: why === LOOPBACK };
}

/** The IPv6 form of an IPv4 network inside an IPv6 prefix that embeds it in its last 32 bits (NAT64). */
function embeddedIn96(prefix: string, network: string): string {
  return `${prefix}${network}`;
}

/** The 6to4 prefix (2002:AABB:CCDD::/48) of an IPv4 network: the IPv4 address is bits 16 to 48. */
function sixToFour(network: string): string {
  const [a = 0, b = 0, c = 0, d = 0] = network.split('.').map(Number);
  const hex = (high: number, low: number) => ((high << 8) | low).toString(16);
  return `2002:${hex(a, b)}:${hex(c, d)}::`;
}

// Node's BlockList matches IPv4 addresses against IPv6 rules (as IPv4-mapped) and the reverse: each rule is
// checked only against addresses of its own family.
const V4_RULES = IPV4_RANGES.map(([network, prefix, why]) => rule(network, prefix, 'ipv4', why));
const V6_RULES = IPV6_RANGES.map(([network, prefix, why]) => rule(network, prefix, 'ipv6', why));
/** NAT64 (64:ff9b::/96, RFC 6052) and 6to4 (2002::/16) reach the IPv4 address they carry: judged by it. */
const NAT64 = rule('64:ff9b::', 96, 'ipv6', 'NAT64');
const SIX_TO_FOUR = rule('2002::', 16, 'ipv6', '6to4');
const NAT64_RULES = IPV4_RANGES.map(([network, prefix, why]) =>
  rule(embeddedIn96('64:ff9b::', network), 96 + prefix, 'ipv6', `the NAT64 form of ${why}`),
);
const SIX_TO_FOUR_RULES = IPV4_RANGES.map(([network, prefix, why]) =>
  rule(sixToFour(network), 16 + prefix, 'ipv6', `the 6to4 form of ${why}`),
);
const GLOBAL_UNICAST = rule('2000::', 3, 'ipv6', 'global unicast');

/** Why `address` (an IP address, no brackets) is not a public one; undefined when it is. */
function addressNotPublic(address: string): NotPublic | undefined {
  const family = isIP(address);
  if (family === 4) return firstMatch(V4_RULES, address, 'ipv4');
  if (family !== 6) return { why: 'not an IP address', loopback: false };
  const bare = address.replace(/%.*$/, ''); // a zone (fe80::1%eth0) names an interface of this host
  if (bare !== address) return { why: LINK_LOCAL, loopback: false };
  if (NAT64.list.check(bare, 'ipv6')) return firstMatch(NAT64_RULES, bare, 'ipv6');
  if (SIX_TO_FOUR.list.check(bare, 'ipv6')) return firstMatch(SIX_TO_FOUR_RULES, bare, 'ipv6');
  const special = firstMatch(V6_RULES, bare, 'ipv6');
  if (special) return special;
  if (!GLOBAL_UNICAST.list.check(bare, 'ipv6'))
    return { why: 'not a global IPv6 address (outside 2000::/3)', loopback: false };
  return undefined;
}

function firstMatch(rules: readonly Rule[], address: string, family: 'ipv4' | 'ipv6'): NotPublic | undefined {
  const found = rules.find((r) => r.list.check(address, family));
  return found && { why: found.why, loopback: found.loopback };
}

/** Names of cloud metadata services, which hand out the credentials of the machine they answer. */
const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data']);
/** Suffixes of names that only a local network resolves (special-use, or never delegated on the internet). */
const LOCAL_SUFFIXES = ['local', 'internal', 'localdomain', 'home.arpa', 'home', 'lan', 'corp', 'intranet'];

/** Why a host name (not an address) is not a public one, before any lookup; undefined when it may be. */
function nameNotPublic(name: string): NotPublic | undefined {
  if (name === 'localhost' || name.endsWith('.localhost')) return { why: 'a name of this very host', loopback: true };
  if (METADATA_NAMES.has(name)) return { why: 'the name of a cloud metadata service', loopback: false };
  const suffix = LOCAL_SUFFIXES.find((s) => name.endsWith(`.${s}`));
  if (suffix) return { why: `a name of a local network (.${suffix})`, loopback: false };
  if (!name.includes('.'))
    return { why: 'a name without a domain, which only a local network resolves', loopback: false };
  return undefined;
}

/** A host the app does not connect to: `message` says why, in words for the workspace's admins. */
export class NonPublicAddressError extends Error {
  override readonly name = 'NonPublicAddressError';
  readonly code = 'MINTLINK_NON_PUBLIC_ADDRESS';
  constructor(
    readonly hostname: string,
    readonly address: string | undefined,
    readonly why: string,
  ) {
    super(
      address === undefined || address === hostname
        ? `${hostname} is ${why}`
        : `${hostname} resolves to ${address}, ${why}`,
    );
  }
}

/** A lookup that took too long: told as the system tells a lookup that failed for now. */
class LookupTimeout extends Error {
  readonly code = 'EAI_AGAIN';
  constructor(hostname: string, ms: number) {
    super(`looking up ${hostname} took longer than ${ms} ms`);
  }
}

/** A name with no address. */
class NoAddress extends Error {
  readonly code = 'ENOTFOUND';
  constructor(hostname: string) {
    super(`${hostname} has no address`);
  }
}

/** The host of a URL as the checks read it: no brackets around IPv6, lower case, no trailing dots. */
export function hostOf(hostname: string): string {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return isIP(host) ? host : host.replace(/\.+$/, '');
}

/**
 * Why a URL's host, as written, is not public (an address, or a name such as localhost or a metadata service);
 * undefined when it may be, which only a lookup can tell (publicAddressOf).
 */
export function writtenHostNotPublic(hostname: string, policy: AddressPolicy): NonPublicAddressError | undefined {
  const host = hostOf(hostname);
  const problem = isIP(host) ? addressNotPublic(host) : nameNotPublic(host);
  if (!problem || (problem.loopback && policy.allowLoopback)) return undefined;
  return new NonPublicAddressError(host, undefined, problem.why);
}

/**
 * The address to connect to for `hostname`: resolved once, here, and checked; a connection goes to exactly
 * this address (no second lookup, which could answer differently). Every address the name resolves to must be
 * public, not only the first: the order of a resolver's answers is not the name owner's to rely on. Throws
 * NonPublicAddressError, or the lookup's own failure (ENOTFOUND, EAI_AGAIN...).
 */
export async function publicAddressOf(
  hostname: string,
  policy: AddressPolicy,
  resolve: HostResolver,
  timeoutMs: number,
): Promise<ResolvedAddress> {
  const written = writtenHostNotPublic(hostname, policy);
  if (written) throw written;
  const host = hostOf(hostname);
  const family = isIP(host);
  if (family === 4 || family === 6) return { address: host, family };
  const found = await withTimeout(resolve(host), timeoutMs, () => new LookupTimeout(host, timeoutMs));
  const first = found[0];
  if (!first) throw new NoAddress(host);
  for (const { address } of found) {
    const problem = addressNotPublic(address);
    if (problem && !(problem.loopback && policy.allowLoopback))
      throw new NonPublicAddressError(host, address, problem.why);
  }
  return first;
}

async function withTimeout<T>(work: Promise<T>, ms: number, timedOut: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(timedOut()), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
