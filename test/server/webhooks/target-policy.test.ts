import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { LookupAddress } from 'node:dns';
import { SET_TIME_LOOKUP_MS, TargetPolicy, refusalReason, type Resolver } from 'mailroom-server/dist/webhooks/target-policy';
import { WebhookSender } from 'mailroom-server/dist/webhooks/webhook-sender';
import { piecedBody } from 'mailroom-server/dist/bytes/pieced-body';
import { sameStore, startTestMailroom } from '../../helpers/mailroom';
import { WebhookReceiver, waitFor } from '../../helpers/webhook-receiver';
import { activity, waitForStatus } from '../../helpers/webhooks';
import { sendMail } from '../../helpers/messages';
import { reserveForwarding } from '../../helpers/addresses';

const ADMIN = { isAdmin: true };
const MEMBER = { isAdmin: false };

/** A resolver standing in for DNS: the names below resolve as a rebinding attacker would make them. */
const resolver: Resolver = (hostname) => {
	const answers: Record<string, LookupAddress[]> = {
		'metadata.test': [{ address: '169.254.169.254', family: 4 }],
		'metadata6.test': [{ address: '::ffff:169.254.169.254', family: 6 }],
		'internal.test': [{ address: '127.0.0.1', family: 4 }],
		'mixed.test': [
			{ address: '169.254.169.254', family: 4 },
			{ address: '127.0.0.1', family: 4 },
		],
		'public.test': [{ address: '93.184.216.34', family: 4 }],
	};
	if (hostname === 'slow.test') return new Promise(() => {});
	return answers[hostname]
		? Promise.resolve(answers[hostname])
		: Promise.reject(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }));
};

/** ipaddr.js's names of ranges: a refusal says what they are in words instead. */
const RANGE_NAMES =
	/linkLocal|uniqueLocal|carrierGradeNat|deprecatedSiteLocal|localUseNat64|rfc\d+|\ban? (metadata|unspecified|private) address/;

describe('SSRF policy: refusalReason', () => {
	it.each([
		['169.254.169.254', 'a link-local address'],
		['fe80::1', 'a link-local address'],
		['0.0.0.0', 'the unspecified address (no one host)'],
		['::', 'the unspecified address (no one host)'],
		['224.0.0.1', 'a multicast address'],
		['ff02::1', 'a multicast address'],
		['255.255.255.255', 'the broadcast address'],
		// Cloud metadata services outside 169.254/16: AWS over IPv6, Alibaba Cloud, Oracle Cloud.
		['fd00:ec2::254', 'a cloud metadata address'],
		['100.100.100.200', 'a cloud metadata address'],
		['192.0.0.192', 'a cloud metadata address'],
		// IPv6 forms of 169.254.169.254: mapped, IPv4-compatible (::/96), NAT64, 6to4, Teredo (client bits inverted).
		['::ffff:169.254.169.254', 'a link-local address'],
		['::169.254.169.254', 'a link-local address'],
		['64:ff9b::a9fe:a9fe', 'a link-local address'],
		['2002:a9fe:a9fe::1', 'a link-local address'],
		['2001:0:4136:e378:8000:63bf:5601:5601', 'a link-local address'],
		['::2', 'the unspecified address (no one host)'],
	])('always refuses %s (%s), whoever the webhook is for', (ip, words) => {
		for (const privateTargets of ['allowed', 'admins-only', 'disabled'] as const) {
			const reason = refusalReason(ip, privateTargets)!;
			expect(reason.endsWith(` is ${words}, which webhooks may not reach`)).toBe(true);
			expect(reason).not.toMatch(RANGE_NAMES);
		}
	});

	it('says a link-local address plainly', () => {
		expect(refusalReason('169.254.169.254', 'allowed')).toBe('169.254.169.254 is a link-local address, which webhooks may not reach');
	});

	it.each([
		['127.0.0.1', 'a loopback address (this machine)'],
		['::1', 'a loopback address (this machine)'],
		['10.1.2.3', 'a private network address'],
		['192.168.1.10', 'a private network address'],
		['172.16.0.1', 'a private network address'],
		['100.64.0.1', "a carrier-grade NAT address (a provider's shared network)"],
		['fd12::1', 'a unique local address (a private IPv6 network)'],
		['fec0::1', 'a site-local address (a private IPv6 network)'],
		['192.0.2.1', 'a reserved address (for documentation, benchmarks or future use)'],
		['240.0.0.1', 'a reserved address (for documentation, benchmarks or future use)'],
		['2001:db8::1', 'a reserved address (for documentation, benchmarks or future use)'],
		['::127.0.0.1', 'a loopback address (this machine)'],
		['::7f00:1', 'a loopback address (this machine)'],
		['::ffff:127.0.0.1', 'a loopback address (this machine)'],
		['64:ff9b::7f00:1', 'a loopback address (this machine)'],
		['64:ff9b:1::1', 'a local-use NAT64 address (a private IPv6 network)'],
		['2002:7f00:1::1', 'a loopback address (this machine)'],
		['2001:0:4136:e378:8000:63bf:80ff:fffe', 'a loopback address (this machine)'],
	])('allows the private, loopback or reserved address %s (%s) only where private targets are', (ip, words) => {
		expect(refusalReason(ip, 'allowed')).toBeNull();
		expect(refusalReason(ip, 'admins-only')).toContain(
			` is ${words}: only the webhooks of admin accounts may go to private addresses, unless --webhook-allow-hosts lists the host`,
		);
		expect(refusalReason(ip, 'disabled')).toContain(
			` is ${words}: --webhook-allow-private is false and --webhook-allow-hosts does not list the host`,
		);
		expect(refusalReason(ip, 'admins-only')).not.toMatch(RANGE_NAMES);
	});

	it('names the IPv4 address an IPv6 one carries', () => {
		expect(refusalReason('::7f00:1', 'admins-only')).toMatch(/^::7f00:1 \(the IPv4 address 127\.0\.0\.1\) is a loopback address/);
	});

	it.each(['93.184.216.34', '2606:2800:220:1::1', '::ffff:93.184.216.34', '64:ff9b::5db8:d822'])('allows the public address %s', (ip) => {
		expect(refusalReason(ip, 'disabled')).toBeNull();
	});
});

describe('TargetPolicy', () => {
	it('lets admin accounts reach private addresses while --webhook-allow-private is true, others only the listed hosts', () => {
		const policy = new TargetPolicy({ allowPrivate: true, allowHosts: ['N8N', 'localhost', '[::1]', '10.0.0.5'] });
		expect(policy.privateTargets('http://anything.internal/', ADMIN)).toBe('allowed');
		expect(policy.privateTargets('http://anything.internal/', MEMBER)).toBe('admins-only');
		for (const url of ['http://n8n:5678/webhook/x', 'http://LOCALHOST./x', 'http://[0:0::1]:8080/', 'https://10.0.0.5/'])
			expect({ url, privateTargets: policy.privateTargets(url, MEMBER) }).toEqual({ url, privateTargets: 'allowed' });
	});

	it('with --webhook-allow-private false, reaches private addresses for the listed hosts only, whoever asks', () => {
		const policy = new TargetPolicy({ allowPrivate: false, allowHosts: ['n8n'] });
		expect(policy.privateTargets('http://n8n/', MEMBER)).toBe('allowed');
		expect(policy.privateTargets('http://other/', ADMIN)).toBe('disabled');
	});

	describe('refusal: the check when a webhook URL is set', () => {
		const policy = new TargetPolicy({ allowPrivate: true, allowHosts: ['internal.test'] }, resolver);

		it('refuses what delivery would always refuse: the scheme, and literal addresses in any form', async () => {
			expect(await policy.refusal('ftp://example.org/', ADMIN)).toBe('ftp: URLs are not allowed');
			expect(await policy.refusal('http://169.254.169.254/latest/meta-data/', ADMIN)).toMatch(
				/is a link-local address, which webhooks may not reach$/,
			);
			expect(await policy.refusal('http://[::169.254.169.254]/', ADMIN)).toMatch(/the IPv4 address 169\.254\.169\.254/);
			expect(await policy.refusal('http://[::127.0.0.1]/', MEMBER)).toMatch(
				/loopback address \(this machine\): only the webhooks of admin accounts/,
			);
			expect(await policy.refusal('http://[::127.0.0.1]/', ADMIN)).toBeNull();
		});

		it('refuses a host name whose every address is refused, and allows one with an allowed address', async () => {
			expect(await policy.refusal('http://metadata.test/', ADMIN)).toMatch(
				/^metadata\.test resolves only to refused addresses: 169\.254\.169\.254/,
			);
			expect(await policy.refusal('http://metadata6.test/', ADMIN)).toMatch(
				/the IPv4 address 169\.254\.169\.254\) is a link-local address/,
			);
			expect(await policy.refusal('http://mixed.test/', ADMIN)).toBeNull();
			expect(await policy.refusal('http://mixed.test/', MEMBER)).toMatch(
				/127\.0\.0\.1 is a loopback address \(this machine\): only the webhooks of admin/,
			);
			expect(await policy.refusal('http://internal.test/', MEMBER)).toBeNull(); // listed
			expect(await policy.refusal('https://public.test/hook', MEMBER)).toBeNull();
		});

		it('accepts a name that does not resolve, or not in time: delivery checks the address it connects to anyway', async () => {
			expect(await policy.refusal('http://nowhere.test/', MEMBER)).toBeNull();
			const started = Date.now();
			expect(await policy.refusal('http://slow.test/', MEMBER)).toBeNull();
			expect(Date.now() - started).toBeLessThan(SET_TIME_LOOKUP_MS + 1000);
		});
	});
});

describe('WebhookSender connects only to checked addresses', () => {
	let receiver: WebhookReceiver;
	let sender: WebhookSender;
	const body = () => piecedBody(() => [Buffer.from('{}')]);
	beforeAll(async () => {
		receiver = new WebhookReceiver();
		await receiver.listen();
		sender = new WebhookSender({ timeoutMs: 1000, resolver });
	});
	afterAll(async () => {
		sender.close();
		await receiver.close();
	});
	beforeEach(() => {
		receiver.requests.length = 0;
	});

	it('refuses a host name that resolves to a link-local (metadata) address', async () => {
		const result = await sender.send(`http://metadata.test:${receiver.port}/`, await body(), {}, 'allowed');
		expect(result.refused).toMatch(/metadata\.test resolves only to refused addresses: 169\.254\.169\.254 is a link-local address/);
		expect(result.statusCode).toBeUndefined();
	});

	it('refuses a host name that resolves to loopback where private targets are not allowed; nothing reaches the receiver', async () => {
		const result = await sender.send(`http://internal.test:${receiver.port}/`, await body(), {}, 'admins-only');
		expect(result.refused).toMatch(/127\.0\.0\.1 is a loopback address \(this machine\): only the webhooks of admin accounts/);
		expect(receiver.requests).toHaveLength(0);
	});

	it('connects to the allowed address when a name resolves to both refused and allowed ones', async () => {
		const result = await sender.send(`http://mixed.test:${receiver.port}/`, await body(), {}, 'allowed');
		expect(result.statusCode).toBe(200);
		expect(receiver.requests).toHaveLength(1);
	});

	it('does not lend a kept-alive connection opened for a webhook allowed private targets to one that is not', async () => {
		expect((await sender.send(`http://internal.test:${receiver.port}/a`, await body(), {}, 'allowed')).statusCode).toBe(200);
		const refused = await sender.send(`http://internal.test:${receiver.port}/b`, await body(), {}, 'admins-only');
		expect(refused.refused).toMatch(/127\.0\.0\.1 is a loopback address/);
		expect(receiver.requests.map((request) => request.url)).toEqual(['/a']);
	});
});

describe('webhook deliveries in a running server follow the policy', () => {
	let receiver: WebhookReceiver;
	beforeAll(async () => {
		receiver = new WebhookReceiver();
		await receiver.listen();
	});
	afterAll(() => receiver.close());
	beforeEach(() => {
		receiver.requests.length = 0;
	});

	it("delivers an admin account's webhook to loopback by default", async () => {
		const server = await startTestMailroom({ webhookAllowHosts: [] });
		try {
			await reserveForwarding(server, server.adminKey, 'admin@ssrf.test', { webhook: `${receiver.url}/admin` });
			await sendMail(server, { to: 'admin@ssrf.test' });
			await waitFor(() => receiver.requests.find((request) => request.url === '/admin'), 'the delivery');
		} finally {
			await server.stop();
		}
	});

	it("delivers an ordinary account's webhook to a host --webhook-allow-hosts lists", async () => {
		const server = await startTestMailroom({ webhookAllowHosts: ['localhost'] });
		try {
			const { key } = await server.createAccount('n8n-team');
			await reserveForwarding(server, key, 'listed@ssrf.test', { webhook: `http://localhost:${receiver.port}/listed` });
			await sendMail(server, { to: 'listed@ssrf.test' });
			await waitFor(() => receiver.requests.find((request) => request.url === '/listed'), 'the delivery to the listed host');
		} finally {
			await server.stop();
		}
	});

	it('refuses at delivery a webhook set before the policy was tightened; nothing reaches the receiver', async () => {
		const email = 'earlier@ssrf.test';
		// Set while the host was listed (the server before its restart), delivered after it no longer is.
		const before = await startTestMailroom({ webhookAllowHosts: ['127.0.0.1'] });
		const { key } = await before.createAccount('earlier');
		await reserveForwarding(before, key, email, { webhook: `${receiver.url}/earlier` });
		await before.stop({ removeData: false });
		const after = await startTestMailroom({ ...sameStore(before), webhookAllowHosts: [] });
		try {
			const [messageId] = await sendMail(after, { to: email });
			const status = await waitForStatus(after, key, email, messageId, 'refused');
			expect(status.lastError).toMatch(
				/^refused: 127\.0\.0\.1 is a loopback address \(this machine\): only the webhooks of admin accounts/,
			);
			const [attempt] = await activity(after, key, '?status=refused');
			expect(attempt).toMatchObject({ status: 'refused', statusCode: null, attempt: 1, nextRetry: null, error: status.lastError });
			expect(receiver.requests).toHaveLength(0);
		} finally {
			await after.stop();
		}
	});
});
