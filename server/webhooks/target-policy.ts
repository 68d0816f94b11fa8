import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * The SSRF policy of webhooks: which addresses a webhook may connect to. Addresses are classified with ipaddr.js (the
 * ranges of the IANA special-purpose registries, kept up to date there); an IPv6 address that embeds an IPv4 one is
 * classed as the address it embeds, since that is where its packets end up.
 */

/** Never a webhook target: link-local (cloud metadata at 169.254.169.254 included), and addresses that are not one host. */
const ALWAYS_REFUSED = new Set(['unspecified', 'linkLocal', 'multicast', 'broadcast', 'metadata']);
/** Cloud instance-metadata services outside the link-local range: AWS over IPv6, Alibaba Cloud, Oracle Cloud. */
const METADATA = new Set(['fd00:ec2::254', '100.100.100.200', '192.0.0.192']);
/** Not on the public internet: loopback, private networks, and reserved ranges (documentation, benchmarking, 240/4). */
const PRIVATE = new Set(['loopback', 'private', 'uniqueLocal', 'carrierGradeNat', 'deprecatedSiteLocal', 'reserved', 'localUseNat64']);

/** Whether a webhook may reach private addresses, and if not, why (the refusal says which setting to change). */
export type PrivateTargets = 'allowed' | 'admins-only' | 'disabled';

/** A target the SSRF policy does not allow; the reason is shown in Recent Activity. */
export class RefusedTargetError extends Error {
	readonly code = 'EREFUSEDTARGET';
}

/** NAT64's well-known prefix 64:ff9b::/96 (RFC 6052); the rest of 64:ff9b::/32 is local-use (RFC 8215), its layout the network's own. */
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');
/** IPv4-compatible addresses (::a.b.c.d, deprecated by RFC 4291 but still routed as IPv4 by some stacks). */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

const ipv4From = (high: number, low: number) => ipaddr.fromByteArray([high >> 8, high & 0xff, low >> 8, low & 0xff]) as ipaddr.IPv4;

/** The IPv4 address an IPv6 address carries, for the forms whose packets reach it: mapped, compatible, NAT64, 6to4, Teredo. */
function embeddedIpv4(ip: ipaddr.IPv6): ipaddr.IPv4 | undefined {
	const parts = ip.parts;
	switch (ip.range()) {
		case 'ipv4Mapped':
		case 'rfc6145':
			return ipv4From(parts[6], parts[7]);
		case 'rfc6052':
			return ip.match(NAT64_WELL_KNOWN) ? ipv4From(parts[6], parts[7]) : undefined;
		case '6to4':
			return ipv4From(parts[1], parts[2]);
		case 'teredo': // the client's address, its bits inverted
			return ipv4From(~parts[6] & 0xffff, ~parts[7] & 0xffff);
		case 'unicast':
			return ip.match(IPV4_COMPATIBLE) ? ipv4From(parts[6], parts[7]) : undefined;
		default:
			return undefined; // :: and ::1 lie in ::/96 too, and are what they are
	}
}

/** The policy's name for the range of `ip` (ipaddr.js's, plus metadata and local-use NAT64), and the IPv4 address it stands for. */
function classify(ip: string): { range: string; ipv4?: string } {
	const parsed = ipaddr.parse(ip);
	const ipv4 = parsed.kind() === 'ipv6' ? embeddedIpv4(parsed as ipaddr.IPv6) : undefined;
	const address = ipv4 ?? parsed;
	if (METADATA.has(address.toString())) return { range: 'metadata', ipv4: ipv4?.toString() };
	const range = address.range();
	return { range: range === 'rfc6052' ? 'localUseNat64' : range, ipv4: ipv4?.toString() };
}

/** The policy's ranges in words, as a refusal names them ("169.254.169.254 is a link-local address"). */
const RANGE_WORDS: Record<string, string> = {
	unspecified: 'the unspecified address (no one host)',
	linkLocal: 'a link-local address',
	multicast: 'a multicast address',
	broadcast: 'the broadcast address',
	metadata: 'a cloud metadata address',
	loopback: 'a loopback address (this machine)',
	private: 'a private network address',
	uniqueLocal: 'a unique local address (a private IPv6 network)',
	carrierGradeNat: "a carrier-grade NAT address (a provider's shared network)",
	deprecatedSiteLocal: 'a site-local address (a private IPv6 network)',
	reserved: 'a reserved address (for documentation, benchmarks or future use)',
	localUseNat64: 'a local-use NAT64 address (a private IPv6 network)',
};

/** A range in words: its own, or its name spelt out ("someRange": "a some range address") for one added to ipaddr.js later. */
function rangeWords(range: string): string {
	if (RANGE_WORDS[range]) return RANGE_WORDS[range];
	const words = range.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
	return `${/^[aeiou]/.test(words) ? 'an' : 'a'} ${words} address`;
}

const PRIVATE_REFUSALS: Record<Exclude<PrivateTargets, 'allowed'>, string> = {
	'admins-only': 'only the webhooks of admin accounts may go to private addresses, unless --webhook-allow-hosts lists the host',
	disabled: '--webhook-allow-private is false and --webhook-allow-hosts does not list the host',
};

/** Why a webhook may not connect to `ip`, or null when it may. */
export function refusalReason(ip: string, privateTargets: PrivateTargets): string | null {
	if (!ipaddr.isValid(ip)) return `${ip} is not an IP address`;
	const { range, ipv4 } = classify(ip);
	const what = `${ip}${ipv4 ? ` (the IPv4 address ${ipv4})` : ''} is ${rangeWords(range)}`;
	if (ALWAYS_REFUSED.has(range)) return `${what}, which webhooks may not reach`;
	if (privateTargets !== 'allowed' && PRIVATE.has(range)) return `${what}: ${PRIVATE_REFUSALS[privateTargets]}`;
	return null;
}

/** Why a host name is refused when every address it resolves to is; null when one of them is allowed. */
function refusalOfAll(hostname: string, addresses: LookupAddress[], privateTargets: PrivateTargets): string | null {
	const reasons = addresses.map((entry) => refusalReason(entry.address, privateTargets));
	if (reasons.some((reason) => reason === null)) return null;
	return `${hostname} resolves only to refused addresses: ${reasons.join('; ') || 'none'}`;
}

/** Strips IPv6 brackets (URL.hostname keeps them), a trailing dot and case; writes IP addresses one way. */
export function normalHost(host: string): string {
	const bare = host
		.replace(/^\[(.*)\]$/, '$1')
		.replace(/\.$/, '')
		.toLowerCase();
	return ipaddr.isValid(bare) ? ipaddr.parse(bare).toString() : bare;
}

/** Why `url` can never be a webhook target by its form alone (its scheme, or an IP literal as host), or null. */
export function urlRefusal(url: string, privateTargets: PrivateTargets): string | null {
	let target: URL;
	try {
		target = new URL(url);
	} catch {
		return `${url} is not a valid URL`;
	}
	if (target.protocol !== 'http:' && target.protocol !== 'https:') return `${target.protocol} URLs are not allowed`;
	const host = normalHost(target.hostname);
	return isIP(host) ? refusalReason(host, privateTargets) : null;
}

/** Resolves a host name to all its addresses (dns.lookup by default; tests inject their own). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) =>
	new Promise((resolve, reject) =>
		dnsLookup(hostname, { all: true } as LookupAllOptions, (err, addresses) => (err ? reject(err) : resolve(addresses))),
	);

/**
 * A `lookup` for the HTTP agent: the socket connects only to addresses checked here, so a
 * name that resolves differently later (DNS rebinding) cannot slip past the check.
 */
export function checkedLookup(privateTargets: PrivateTargets, resolver: Resolver): LookupFunction {
	return (hostname, options, callback) => {
		resolver(hostname).then(
			(addresses) => {
				const family = options.family === 4 || options.family === 6 ? options.family : undefined;
				const candidates = addresses.filter((entry) => family === undefined || entry.family === family);
				const allowed = candidates.filter((entry) => refusalReason(entry.address, privateTargets) === null);
				if (allowed.length === 0) return callback(new RefusedTargetError(refusalOfAll(hostname, candidates, privateTargets)!), '', 0);
				if (options.all) return callback(null, allowed);
				callback(null, allowed[0].address, allowed[0].family);
			},
			(err: NodeJS.ErrnoException) => callback(err, '', 0),
		);
	};
}

/** How long setting a webhook waits for its host name to resolve before leaving the check to delivery. */
export const SET_TIME_LOOKUP_MS = 2000;

export interface TargetRules {
	/** --webhook-allow-private: webhooks of admin accounts may go to private and loopback addresses. */
	allowPrivate: boolean;
	/** --webhook-allow-hosts: hosts the webhooks of every account may reach, at private addresses too. */
	allowHosts: string[];
}

/** The account a webhook delivers for (the owner of the address), as far as the policy cares. */
export interface TargetOwner {
	isAdmin: boolean;
}

/**
 * Who may send webhooks where. Private and loopback targets (n8n on the same host or compose network) are open to the
 * webhooks of admin accounts while --webhook-allow-private is true, and to every account's for the hosts
 * --webhook-allow-hosts lists; other accounts, which may be other teams on a shared server, reach only public addresses.
 */
export class TargetPolicy {
	private readonly allowHosts: Set<string>;

	constructor(
		private readonly rules: TargetRules,
		private readonly resolver: Resolver = systemResolver,
	) {
		this.allowHosts = new Set(rules.allowHosts.map(normalHost));
	}

	/** Whether a webhook of `owner` to `url` may reach private addresses. */
	privateTargets(url: string, owner: TargetOwner): PrivateTargets {
		let host: string;
		try {
			host = normalHost(new URL(url).hostname);
		} catch {
			return this.rules.allowPrivate ? 'admins-only' : 'disabled'; // no valid URL goes anywhere anyway
		}
		if (this.allowHosts.has(host)) return 'allowed';
		if (!this.rules.allowPrivate) return 'disabled';
		return owner.isAdmin ? 'allowed' : 'admins-only';
	}

	/**
	 * Why a webhook URL `owner` sets would never be delivered, or null: its form, an IP literal the policy refuses, or a host
	 * name all of whose addresses it refuses. A name that does not resolve within SET_TIME_LOOKUP_MS is accepted (the
	 * receiver may not be up yet): delivery checks the address it connects to in any case.
	 */
	async refusal(url: string, owner: TargetOwner): Promise<string | null> {
		const privateTargets = this.privateTargets(url, owner);
		const byForm = urlRefusal(url, privateTargets);
		if (byForm !== null) return byForm;
		const host = normalHost(new URL(url).hostname);
		if (isIP(host)) return null; // an address urlRefusal has passed
		const addresses = await this.resolveBriefly(host);
		return addresses.length ? refusalOfAll(host, addresses, privateTargets) : null;
	}

	/** The host's addresses, or none when it does not resolve within SET_TIME_LOOKUP_MS. */
	private resolveBriefly(host: string): Promise<LookupAddress[]> {
		let timer: NodeJS.Timeout | undefined;
		const timeout = new Promise<LookupAddress[]>((resolve) => {
			timer = setTimeout(() => resolve([]), SET_TIME_LOOKUP_MS).unref();
		});
		const lookup = this.resolver(host).catch((): LookupAddress[] => []);
		return Promise.race([lookup, timeout]).finally(() => clearTimeout(timer));
	}
}
