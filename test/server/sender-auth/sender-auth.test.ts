import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { generateKeyPairSync } from 'node:crypto';
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer';
import { Resolver } from 'node:dns/promises';
import { authenticate, sealMessage } from 'mailauth';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import { startDnsServer, type TestDnsServer } from '../../helpers/dns-server';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { enc, sendMail } from '../../helpers/messages';
import { waitFor, WebhookReceiver } from '../../helpers/webhook-receiver';
import { subscribe, type PayloadJson } from '../../helpers/webhooks';

/** A 1,024-bit RSA key pair (the smallest mailauth accepts: its TXT record fits a UDP answer) and its DKIM record. */
function dkimKey() {
	const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
	return {
		privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
		record: `v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`,
	};
}

/** A message as nodemailer writes it (signed if asked), not sent. */
const compose = (mail: Mail.Options) =>
	new Promise<Buffer>((resolve, reject) =>
		nodemailer
			.createTransport({ streamTransport: true, buffer: true })
			.sendMail(mail, (err, info) => (err ? reject(err) : resolve(info.message as Buffer))),
	);

/**
 * Sender authentication through real SMTP, against a real DNS server on 127.0.0.1 that publishes SPF, DKIM and DMARC
 * records: the record's auth, the Authentication-Results header in front of the stored source, the payload, search,
 * a filtered subscription and the spam score.
 */
describe('sender authentication of received mail', () => {
	const vendor = dkimKey();
	const forwarder = dkimKey();
	let dns: TestDnsServer;
	let server: TestMailroom;
	let key: string;
	let receiver: WebhookReceiver;
	const inbox = 'ap@buyer.test';

	beforeAll(async () => {
		dns = await startDnsServer({
			txt: {
				// The vendor: mail from this machine only, signed, and a DMARC policy that rejects the rest.
				'vendor.test': ['v=spf1 ip4:127.0.0.1 -all'],
				's1._domainkey.vendor.test': [vendor.record],
				'_dmarc.vendor.test': ['v=DMARC1; p=reject'],
				// A bank whose mail never comes from here: anything from this machine claiming to be it is forged.
				'bank.test': ['v=spf1 ip4:192.0.2.10 -all'],
				'_dmarc.bank.test': ['v=DMARC1; p=reject'],
				// A shop that only asks to be treated with suspicion, and publishes no DMARC record.
				'shop.test': ['v=spf1 ~all'],
				// A club that publishes SPF only: its mail from here is authenticated by SPF alone.
				'club.test': ['v=spf1 ip4:127.0.0.1 -all'],
				// A mailing list that forwards (and seals what it forwards with ARC).
				'list.test': ['v=spf1 ip4:127.0.0.1 -all'],
				'arc._domainkey.list.test': [forwarder.record],
			},
		});
		dns.silent.add('slow.test');
		dns.silent.add('_dmarc.slow.test');
		// A sender whose SPF answers but whose DKIM key server never does.
		dns.silent.add('s1._domainkey.club.test');
		// Messages of 64 KB and more are received into a spool file: verified from there.
		server = await startTestMailroom({ verifySenders: true, dnsServers: [dns.address], dnsTimeout: 2000, spoolThreshold: 64 * 1024 });
		key = (await server.createAccount('buyer')).key;
		expect((await server.api(`/api/addresses/${enc(inbox)}`, { method: 'POST', key })).status).toBe(200);
		receiver = new WebhookReceiver();
		await receiver.listen();
	});
	afterAll(async () => {
		await server.stop();
		await receiver.close();
		await dns.close();
	});

	const record = async (id: string) => (await server.api<MessageRecord>(`/api/addresses/${enc(inbox)}/messages/${id}`, { key })).body;
	const raw = async (id: string) => (await server.api<string>(`/api/raw/${enc(inbox)}/${id}`, { key })).text;
	const search = async (query: string) =>
		(await server.api<{ messages: MessageRecord[] }>(`/api/inbox-search?query=${enc(query)}`, { key })).body.messages.map((m) => m.subject);

	const fromVendor = () =>
		sendMail(server, {
			from: 'Billing <billing@vendor.test>',
			to: inbox,
			subject: 'Invoice 7',
			text: 'Please pay invoice 7.',
			dkim: { domainName: 'vendor.test', keySelector: 's1', privateKey: vendor.privateKey },
		});

	it('finds genuine mail authenticated: SPF, DKIM and DMARC pass, aligned; a header says so in front of the source', async () => {
		const [id] = await fromVendor();
		const message = await record(id);
		expect(message.auth).toEqual({
			spf: { result: 'pass', domain: 'vendor.test' },
			dkim: [{ result: 'pass', domain: 'vendor.test', selector: 's1', aligned: true }],
			dmarc: { result: 'pass', policy: 'reject', domain: 'vendor.test' },
			arc: { result: 'none' },
			authenticated: true,
		});
		expect(message.spam).toBeLessThan(0.3);
		const source = await raw(id);
		const hostname = server.config.hostname;
		expect(source).toMatch(new RegExp(`^Received-SPF: pass \\(${hostname}: domain of billing@vendor\\.test designates 127\\.0\\.0\\.1`));
		const results = /\r\nAuthentication-Results: ([^]*?)\r\n(?![ \t])/.exec(source)![1];
		expect(results).toMatch(new RegExp(`^${hostname};\\r\\n dkim=pass header\\.i=@vendor\\.test header\\.s=s1`));
		expect(results).toMatch(/\r\n spf=pass .*smtp\.mailfrom=billing@vendor\.test/);
		expect(results).toMatch(/\r\n dmarc=pass \(p=REJECT/);
		// The message itself follows, as it was sent: its own signature still verifies.
		expect(source.indexOf('DKIM-Signature: ')).toBeGreaterThan(source.indexOf('Authentication-Results: '));
		expect(message.size).toBe(Buffer.byteLength(source, 'latin1'));

		const payload = (await server.api<PayloadJson>(`/api/addresses/${enc(inbox)}/messages/${id}/payload`, { key })).body;
		expect(payload.auth).toEqual(message.auth);
		const listed = (await server.api<MessageRecord[]>(`/api/addresses/${enc(inbox)}/messages`, { key })).body;
		expect(listed.find((m) => m._id === id)).toEqual(message);
	});

	it('finds a forged sender: SPF and DMARC fail, the policy given, and the spam score counts it heavily', async () => {
		const [id] = await sendMail(server, { from: 'Bank <security@bank.test>', to: inbox, subject: 'Verify your account now' });
		const message = await record(id);
		expect(message.auth).toEqual({
			spf: { result: 'fail', domain: 'bank.test' },
			dkim: [],
			dmarc: { result: 'fail', policy: 'reject', domain: 'bank.test' },
			arc: { result: 'none' },
			authenticated: false,
		});
		expect(message.spam).toBeGreaterThanOrEqual(0.9);
	});

	it('gives softfail, none and (for a DNS server that does not answer) temperror within the time budget', async () => {
		const [soft] = await sendMail(server, { from: 'shop@shop.test', to: inbox, subject: 'Sale' });
		expect((await record(soft)).auth).toMatchObject({
			spf: { result: 'softfail' },
			dmarc: { result: 'none', policy: null },
			authenticated: false,
		});

		const [nothing] = await sendMail(server, { from: 'someone@nowhere.test', to: inbox, subject: 'Hi' });
		expect((await record(nothing)).auth).toMatchObject({ spf: { result: 'none', domain: 'nowhere.test' }, dmarc: { result: 'none' } });

		// SPF alone passes for a domain without DMARC: authenticated.
		const [club] = await sendMail(server, { from: 'news@club.test', to: inbox, subject: 'Club news' });
		expect((await record(club)).auth).toMatchObject({ spf: { result: 'pass' }, dmarc: { result: 'none' }, authenticated: true });

		const started = Date.now();
		const [slow] = await sendMail(server, { from: 'late@slow.test', to: inbox, subject: 'Slow DNS' });
		expect(Date.now() - started).toBeLessThan(5000);
		expect((await record(slow)).auth).toMatchObject({ spf: { result: 'temperror' }, authenticated: false });
	});

	it('keeps the SPF result when a DKIM key never comes, and fails a signature whose body was changed', async () => {
		const [hanging] = await sendMail(server, {
			from: 'news@club.test',
			to: inbox,
			subject: 'Club news, signed',
			dkim: { domainName: 'club.test', keySelector: 's1', privateKey: vendor.privateKey },
		});
		expect((await record(hanging)).auth).toMatchObject({
			spf: { result: 'pass', domain: 'club.test' },
			dkim: [{ result: 'temperror', domain: 'club.test' }],
			authenticated: true,
		});

		const signed = await compose({
			from: 'billing@vendor.test',
			to: inbox,
			subject: 'Invoice 9',
			text: 'Please pay invoice 9.',
			dkim: { domainName: 'vendor.test', keySelector: 's1', privateKey: vendor.privateKey },
		});
		const altered = Buffer.from(signed.toString('latin1').replace('invoice 9', 'invoice 99'), 'latin1');
		const [id] = await sendMail(server, { envelope: { from: 'billing@vendor.test', to: [inbox] }, raw: altered });
		expect((await record(id)).auth).toMatchObject({
			dkim: [{ result: 'fail', domain: 'vendor.test', selector: 's1', aligned: true }],
			dmarc: { result: 'pass' },
		});
		expect(await raw(id)).toMatch(/\r\n dkim=fail \(body hash did not verify\) header\.i=@vendor\.test/);
	});

	it('verifies a message received into a spool file, and puts the header in front of the file it stores', async () => {
		const attachment = Buffer.alloc(300 * 1024, 'x');
		const [id] = await sendMail(server, {
			from: 'Billing <billing@vendor.test>',
			to: inbox,
			subject: 'Invoice 10, with the scans',
			text: 'Scans attached.',
			attachments: [{ filename: 'scans.bin', content: attachment }],
			dkim: { domainName: 'vendor.test', keySelector: 's1', privateKey: vendor.privateKey },
		});
		const message = await record(id);
		expect(message.auth).toMatchObject({
			spf: { result: 'pass' },
			dkim: [{ result: 'pass' }],
			dmarc: { result: 'pass' },
			authenticated: true,
		});
		const source = await raw(id);
		expect(source).toMatch(/^Received-SPF: pass /);
		expect(source.indexOf('DKIM-Signature: ')).toBeGreaterThan(source.indexOf(`Authentication-Results: ${server.config.hostname};`));
		expect(message.size).toBe(Buffer.byteLength(source, 'latin1'));
		expect(message.size).toBeGreaterThan(400 * 1024);
	});

	it('reads the ARC seal of a forwarded message whose DKIM signature the list broke', async () => {
		// The vendor's signed mail, as the list received it, sealed by the list and then changed (a subject tag).
		const lookups = new Resolver();
		lookups.setServers([dns.address]);
		const original = await compose({
			from: 'billing@vendor.test',
			to: 'members@list.test',
			subject: 'Invoice 8',
			text: 'Please pay invoice 8.',
			dkim: { domainName: 'vendor.test', keySelector: 's1', privateKey: vendor.privateKey },
		});
		// As a list does: it checks what it received, changes it, and seals the changed message with what it found.
		const received = await authenticate(original, {
			ip: '127.0.0.1',
			helo: 'mx.vendor.test',
			sender: 'billing@vendor.test',
			mta: 'mx.list.test',
			resolver: async (name: string, type: string) => (await lookups.resolve(name, type)) as string[][],
			disableBimi: true,
		});
		const changed = Buffer.from(original.toString('latin1').replace('Subject: Invoice 8', 'Subject: [list] Invoice 8'), 'latin1');
		const seal = await sealMessage(changed, {
			signingDomain: 'list.test',
			selector: 'arc',
			privateKey: forwarder.privateKey,
			authResults: received.arc ? received.arc.authResults : undefined,
			cv: received.arc ? received.arc.status.result : 'none',
		});
		const forwarded = Buffer.concat([seal, changed]);
		const [id] = await sendMail(server, { envelope: { from: 'bounces@list.test', to: [inbox] }, raw: forwarded });
		const { auth } = await record(id);
		expect(auth?.arc).toEqual({ result: 'pass' });
		expect(auth?.dkim).toEqual([{ result: 'fail', domain: 'vendor.test', selector: 's1', aligned: true }]);
		expect(auth?.spf).toEqual({ result: 'pass', domain: 'list.test' });
	});

	it('searches by result, and a subscription that takes authenticated senders only skips forged mail', async () => {
		expect((await search('is:authenticated subject:invoice')).sort()).toEqual(['Invoice 10, with the scans', 'Invoice 7', 'Invoice 9']);
		// The list broke the vendor's signature and sends from its own domain: DMARC fails (ARC tells why, for who trusts the list).
		expect((await search('dmarc:fail')).sort()).toEqual(['Verify your account now', '[list] Invoice 8']);
		expect((await search('dkim:pass')).sort()).toEqual(['Invoice 10, with the scans', 'Invoice 7']);
		expect(await search('spf:softfail')).toEqual(['Sale']);
		expect((await search('-is:authenticated')).sort()).toEqual(
			['Hi', 'Sale', 'Slow DNS', 'Verify your account now', '[list] Invoice 8'].sort(),
		);
		expect((await server.api(`/api/inbox-search?query=${enc('dkim:maybe')}`, { key })).body).toMatchObject({
			message: expect.stringMatching(/^dkim:maybe is not known: dkim: takes pass, fail, softfail, neutral, none, temperror, permerror/),
		});

		await subscribe(server, key, inbox, { url: `${receiver.url}/trusted`, filter: { authenticated: true } });
		await sendMail(server, { from: 'Bank <security@bank.test>', to: inbox, subject: 'Forged again' });
		const [genuine] = await fromVendor();
		const delivery = await waitFor(() => receiver.requests.find((request) => request.url === '/trusted'), 'the delivery of genuine mail');
		const posted = JSON.parse(delivery.body) as PayloadJson;
		expect(posted._id).toBe(genuine);
		expect(posted.auth?.authenticated).toBe(true);
		expect(receiver.requests.filter((request) => request.url === '/trusted')).toHaveLength(1);
	});
});
