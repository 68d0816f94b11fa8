import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { LookupAddress } from 'node:dns';
import { refusalReason } from 'mailroom-server/dist/webhooks/target-policy';
import { WebhookSender } from 'mailroom-server/dist/webhooks/webhook-sender';
import { piecedBody } from 'mailroom-server/dist/bytes/pieced-body';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { WebhookReceiver } from '../../helpers/webhook-receiver';
import { activity, waitForStatus } from '../../helpers/webhooks';
import { sendMail } from '../../helpers/messages';
import { reserveForwarding } from '../../helpers/addresses';

describe('SSRF policy: refusalReason', () => {
	it.each([
		['169.254.169.254', 'linkLocal'],
		['fe80::1', 'linkLocal'],
		['::ffff:169.254.169.254', 'linkLocal'],
		['0.0.0.0', 'unspecified'],
		['::', 'unspecified'],
		['224.0.0.1', 'multicast'],
		['ff02::1', 'multicast'],
		['255.255.255.255', 'broadcast'],
	])('always refuses %s (%s), even with private targets allowed', (ip, range) => {
		expect(refusalReason(ip, true)).toContain(range);
		expect(refusalReason(ip, false)).toContain(range);
	});

	it.each(['127.0.0.1', '::1', '10.1.2.3', '192.168.1.10', '172.16.0.1', 'fd00:ec2::254', '100.100.100.200'])(
		'allows the private or loopback address %s only while private targets are allowed',
		(ip) => {
			expect(refusalReason(ip, true)).toBeNull();
			expect(refusalReason(ip, false)).toMatch(/MAILROOM_WEBHOOK_ALLOW_PRIVATE is false/);
		},
	);

	it('allows public addresses', () => {
		expect(refusalReason('93.184.216.34', false)).toBeNull();
		expect(refusalReason('2606:2800:220:1::1', false)).toBeNull();
	});
});

describe('WebhookSender connects only to checked addresses', () => {
	let receiver: WebhookReceiver;
	beforeAll(async () => {
		receiver = new WebhookReceiver();
		await receiver.listen();
	});
	afterAll(() => receiver.close());
	beforeEach(() => {
		receiver.requests.length = 0;
	});

	/** A resolver standing in for DNS: the names below resolve as a rebinding attacker would make them. */
	const resolver = (hostname: string): Promise<LookupAddress[]> =>
		Promise.resolve(
			(
				{
					'metadata.test': [{ address: '169.254.169.254', family: 4 }],
					'internal.test': [{ address: '127.0.0.1', family: 4 }],
					'mixed.test': [
						{ address: '169.254.169.254', family: 4 },
						{ address: '127.0.0.1', family: 4 },
					],
				} as Record<string, LookupAddress[]>
			)[hostname] ?? [],
		);

	it('refuses a host name that resolves to a link-local (metadata) address', async () => {
		const sender = new WebhookSender({ timeoutMs: 1000, allowPrivate: true, resolver });
		const result = await sender.send(`http://metadata.test:${receiver.port}/`, await piecedBody(() => [Buffer.from('{}')]), {});
		sender.close();
		expect(result.refused).toMatch(/metadata\.test resolves only to refused addresses: 169\.254\.169\.254 is a linkLocal address/);
		expect(result.statusCode).toBeUndefined();
	});

	it('refuses a host name that resolves to loopback when private targets are not allowed; nothing reaches the receiver', async () => {
		const sender = new WebhookSender({ timeoutMs: 1000, allowPrivate: false, resolver });
		const result = await sender.send(`http://internal.test:${receiver.port}/`, await piecedBody(() => [Buffer.from('{}')]), {});
		sender.close();
		expect(result.refused).toMatch(/127\.0\.0\.1 is a loopback address/);
		expect(receiver.requests).toHaveLength(0);
	});

	it('connects to the allowed address when a name resolves to both refused and allowed ones', async () => {
		const sender = new WebhookSender({ timeoutMs: 1000, allowPrivate: true, resolver });
		const result = await sender.send(`http://mixed.test:${receiver.port}/`, await piecedBody(() => [Buffer.from('{}')]), {});
		sender.close();
		expect(result.statusCode).toBe(200);
		expect(receiver.requests).toHaveLength(1);
	});
});

describe('refused webhook targets in a running server', () => {
	let receiver: WebhookReceiver;
	beforeAll(async () => {
		receiver = new WebhookReceiver();
		await receiver.listen();
	});
	afterAll(() => receiver.close());

	/** Points a new account's `email` at `url`, sends it a message; the error its refused delivery shows. */
	async function refusedDelivery(server: TestMailroom, email: string, url: string): Promise<string> {
		const { key } = await server.createAccount(`owner-${email.split('@')[0]}`);
		await reserveForwarding(server, key, email, { webhook: url });
		const [messageId] = await sendMail(server, { to: email, subject: 'ssrf' });
		const status = await waitForStatus(server, key, email, messageId, 'refused');
		const [attempt] = await activity(server, key, '?status=refused');
		expect(attempt).toMatchObject({ status: 'refused', statusCode: null, attempt: 1, nextRetry: null });
		expect(attempt.error).toBe(status.lastError);
		return status.lastError!;
	}

	it('refuses the metadata address literal by default, before connecting', async () => {
		const server = await startTestMailroom();
		try {
			expect(await refusedDelivery(server, 'meta@ssrf.test', 'http://169.254.169.254/latest/meta-data/')).toMatch(
				/^refused: 169\.254\.169\.254 is a linkLocal address/,
			);
			expect(await refusedDelivery(server, 'meta6@ssrf.test', 'http://[fe80::1]:8080/')).toMatch(
				/^refused: fe80::1 is a linkLocal address/,
			);
		} finally {
			await server.stop();
		}
	});

	it('refuses loopback literals and names resolving to loopback when MAILROOM_WEBHOOK_ALLOW_PRIVATE=false', async () => {
		const server = await startTestMailroom({ webhookAllowPrivate: false });
		try {
			expect(await refusedDelivery(server, 'literal@ssrf.test', `${receiver.url}/`)).toMatch(
				/127\.0\.0\.1 is a loopback address and MAILROOM_WEBHOOK_ALLOW_PRIVATE is false/,
			);
			expect(await refusedDelivery(server, 'name@ssrf.test', `http://localhost:${receiver.port}/`)).toMatch(
				/^refused: localhost resolves only to refused addresses/,
			);
			expect(receiver.requests).toHaveLength(0);
		} finally {
			await server.stop();
		}
	});
});
