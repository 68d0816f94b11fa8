import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { enc, sendMail } from '../../helpers/messages';
import type { PayloadJson } from '../../helpers/webhooks';

/**
 * What a received message's record says the person wrote (strippedText, strippedSignature) and the codes it holds, through
 * real SMTP and the real API: the record, a listing, account search and the payload agree, and waiting for mail gives them.
 */
describe('what was written, and codes, in the record', () => {
	let server: TestMailroom;
	let key: string;
	const inbox = 'helpdesk@written.test';

	beforeAll(async () => {
		server = await startTestMailroom();
		key = (await server.createAccount('written')).key;
		expect((await server.api(`/api/addresses/${enc(inbox)}`, { method: 'POST', key })).status).toBe(200);
	});
	afterAll(() => server.stop());

	const record = async (id: string) => (await server.api<MessageRecord>(`/api/addresses/${enc(inbox)}/messages/${id}`, { key })).body;

	const reply = [
		'Yes, approved. Go ahead with the order.',
		'',
		'--',
		'Ann Lee',
		'Head of Purchasing',
		'',
		'On Mon, 23 Nov 2026 at 09:12, Shop <orders@shop.test> wrote:',
		'> Can we place order 1042 for 3 laptops?',
		'> Thanks',
		'',
	].join('\r\n');

	it('keeps the new text of a reply without the quoted thread and the signature, everywhere the record goes', async () => {
		const [id] = await sendMail(server, {
			from: 'Ann Lee <ann@customer.test>',
			to: inbox,
			subject: 'Re: Order 1042',
			text: reply,
		});
		const single = await record(id);
		expect(single.strippedText).toBe('Yes, approved. Go ahead with the order.');
		expect(single.strippedSignature).toBe('Ann Lee\nHead of Purchasing');
		expect(single.codes).toEqual([]);

		// The listing is rendered by the database: the same fields, the same values.
		const listing = (await server.api<MessageRecord[]>(`/api/addresses/${enc(inbox)}/messages`, { key })).body;
		expect(listing.find((message) => message._id === id)).toEqual(single);

		const payload = (await server.api<PayloadJson>(`/api/addresses/${enc(inbox)}/messages/${id}/payload`, { key })).body;
		expect(payload).toMatchObject({ strippedText: single.strippedText, strippedSignature: single.strippedSignature, codes: [] });
	});

	it('gives the one-time code of a sign-up mail, and a wait for mail answers with it and the links', async () => {
		const since = new Date(Date.now() - 1000).toISOString();
		const waiting = server.api<MessageRecord>(`/api/addresses/${enc(inbox)}/wait-for-message?subject=verify&timeout=10000&since=${since}`, {
			key,
		});
		await sendMail(server, {
			from: 'Example <noreply@app.test>',
			to: inbox,
			subject: 'Verify your email address',
			text: 'Welcome! Your verification code is 482 913.\r\nIt expires in 10 minutes.\r\nOr open https://app.test/verify?t=abc\r\n',
		});
		const answer = await waiting;
		expect(answer.status).toBe(200);
		expect(answer.body.codes).toEqual(['482913']);
		expect(answer.body.links).toEqual(['https://app.test/verify?t=abc']);
		expect(answer.body.strippedText).toContain('Your verification code is 482 913.');
	});

	it('finds no code in an invoice full of numbers, and an HTML-only reply is read from the text made of its HTML', async () => {
		const [invoice] = await sendMail(server, {
			to: inbox,
			subject: 'Invoice No. 2026-00017 for order #104233',
			text: 'Invoice date: 2026-11-23\r\nTotal: $1,249.99 due 12/23/2026\r\nCall +1 (555) 123-4567 at 10:30.\r\n',
		});
		expect((await record(invoice)).codes).toEqual([]);

		const [html] = await sendMail(server, {
			to: inbox,
			subject: 'Re: Lunch',
			text: undefined,
			html: '<div>Friday works for me.</div><div><br></div><div class="gmail_quote"><div>On Mon, 23 Nov 2026 at 09:12, Bob &lt;bob@b.test&gt; wrote:</div><blockquote class="gmail_quote">Lunch on Friday?</blockquote></div>',
		});
		expect((await record(html)).strippedText).toBe('Friday works for me.');
	});

	it("keeps an HTML-only mail's table cells apart in its text: a row to a line, so search and the code reader see each word", async () => {
		const [id] = await sendMail(server, {
			to: inbox,
			subject: 'Sign in to Shop',
			text: undefined,
			html:
				'<table><tr><td>Your code</td><td><b>482913</b></td><td>Expires in 10 minutes</td></tr></table>' +
				'<table><tr><th>Item</th><th>Price</th></tr><tr><td>Tea</td><td>3.50</td></tr></table>',
		});
		const message = await record(id);
		expect(message.codes).toEqual(['482913']);
		expect(message.strippedText).toMatch(/^Your code +482913 +Expires in 10 minutes\n\nItem +Price\nTea +3\.50$/);
		const found = await server.api<{ messages: MessageRecord[] }>(`/api/inbox-search?query=${enc('482913')}`, { key });
		expect(found.body.messages.map((m) => m._id)).toEqual([id]);
	});
});
