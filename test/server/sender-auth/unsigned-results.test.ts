import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { generateKeyPairSync } from 'node:crypto';
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer';
import { DnsLookups } from 'mailroom-server/dist/sender-auth/dns-lookups';
import { UnsignedResults } from 'mailroom-server/dist/sender-auth/unsigned-results';
import { verifySender } from 'mailroom-server/dist/sender-auth/verify-sender';
import { startDnsServer, type TestDnsServer } from '../../helpers/dns-server';

const compose = (mail: Mail.Options) =>
	new Promise<Buffer>((resolve, reject) =>
		nodemailer
			.createTransport({ streamTransport: true, buffer: true })
			.sendMail(mail, (err, info) => (err ? reject(err) : resolve(info.message as Buffer))),
	);

/**
 * Unsigned mail of one sender is verified once and its results kept: what the DNS server is asked shows it (the lookups
 * themselves are not cached here, so every verification that runs asks again).
 */
describe('the results of unsigned mail, kept per sender', () => {
	const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
	let dns: TestDnsServer;
	let options: Parameters<typeof verifySender>[2];
	const client = { ip: '127.0.0.1', helo: 'mx.shop.test', sender: 'news@shop.test' };

	beforeAll(async () => {
		dns = await startDnsServer({
			txt: {
				'shop.test': ['v=spf1 ip4:127.0.0.1 -all'],
				'_dmarc.shop.test': ['v=DMARC1; p=none'],
				's1._domainkey.shop.test': [`v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`],
			},
		});
		options = {
			hostname: 'mx.buyer.test',
			dns: new DnsLookups({ servers: [dns.address], timeoutMs: 2000, cache: { answerMs: 0, negativeMs: 0, failureMs: 0 } }),
			budgetMs: 2000,
			unsignedResults: new UnsignedResults(),
		};
	});
	afterAll(() => dns.close());

	const asked = () => dns.queries.length;
	const verify = async (mail: Mail.Options, by = client) => verifySender(await compose(mail), by, options);

	it('verifies the next unsigned message of the same sender from what the first found, and another sender anew', async () => {
		const first = await verify({ from: 'Shop <news@shop.test>', to: 'a@buyer.test', subject: 'Sale', text: 'One.' });
		expect(first.auth).toMatchObject({ spf: { result: 'pass' }, dmarc: { result: 'pass' }, authenticated: true });
		const before = asked();
		const again = await verify({ from: 'Shop <news@shop.test>', to: 'b@buyer.test', subject: 'Sale, day 2', text: 'Two.' });
		expect(again).toEqual(first);
		expect(asked()).toBe(before);

		// Another From (DMARC reads it), another client address (SPF reads it): each checked anew.
		await verify({ from: 'Billing <billing@shop.test>', to: 'a@buyer.test', subject: 'Invoice', text: 'Three.' });
		expect(asked()).toBeGreaterThan(before);
		const afterFrom = asked();
		await verify({ from: 'Shop <news@shop.test>', to: 'a@buyer.test', subject: 'Sale', text: 'Four.' }, { ...client, ip: '192.0.2.7' });
		expect(asked()).toBeGreaterThan(afterFrom);
	});

	it('verifies every signed message: its signature covers its own body', async () => {
		const signed = {
			from: 'Shop <news@shop.test>',
			to: 'a@buyer.test',
			subject: 'Receipt',
			dkim: { domainName: 'shop.test', keySelector: 's1', privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() },
		};
		const first = await verify({ ...signed, text: 'Paid.' });
		expect(first.auth.dkim).toEqual([{ result: 'pass', domain: 'shop.test', selector: 's1', aligned: true }]);
		const before = asked();
		const second = await verify({ ...signed, text: 'Paid twice.' });
		expect(second.auth.dkim).toEqual(first.auth.dkim);
		expect(dns.queries.slice(before)).toContain('TXT s1._domainkey.shop.test');
	});

	it('does not keep a result that could not be looked up in time', async () => {
		dns.silent.add('late.test');
		const late = { ...client, sender: 'news@late.test' };
		const mail = { from: 'news@late.test', to: 'a@buyer.test', subject: 'Late', text: 'x' };
		options = { ...options, budgetMs: 300 };
		expect((await verify(mail, late)).auth.spf.result).toBe('temperror');
		const before = dns.queries.filter((query) => query === 'TXT late.test').length;
		await verify(mail, late);
		expect(dns.queries.filter((query) => query === 'TXT late.test').length).toBeGreaterThan(before);
	});
});
