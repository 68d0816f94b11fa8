import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INodeParameters } from 'n8n-workflow';
import { WAIT_INDEFINITELY } from 'n8n-workflow';
import type { OutgoingRecord } from 'mailroom-server/dist/schemas/outgoing';
import { enc, sendMail } from '../../../helpers/messages';
import { queryValue } from '../../../helpers/database';
import { activity } from '../../../helpers/webhooks';
import {
	NO_ACTION_REQUIRED,
	nodeDescription,
	postJson,
	shownParameters,
	signed,
	startNodeFixture,
	type NodeFixture,
} from '../../../helpers/n8n';

const ASKER = 'asker@example.test';
const BOSS = 'boss@example.test';

/** Email → Send and Wait for Response: execute() and the resume webhook in n8n-core's real contexts, against a real server. */
describe('Mailroom node: Email Send and Wait for Response', () => {
	let fixture: NodeFixture;
	beforeAll(async () => {
		fixture = await startNodeFixture({ credits: 20 });
		await fixture.server.api(`/api/addresses/${enc(ASKER)}`, { key: fixture.account.key, method: 'POST' });
	});
	afterAll(() => fixture.stop());

	const items = [{ json: { order: 1042 } }, { json: { order: 1043 } }];
	const sendAndWait = (parameters: INodeParameters) =>
		fixture.n8n.executeWaiting(
			'mailroom',
			{ resource: 'email', operation: 'sendAndWait', from: ASKER, sendTo: BOSS, subject: 'Order 1042', message: 'Ship it?', ...parameters },
			items,
		);

	/** The newest message the boss got: its record id, Message-ID, text and HTML. */
	async function lastMail() {
		const { server, account } = fixture;
		const [sent] = (await server.api<OutgoingRecord[]>('/api/outgoing-messages?limit=1', { key: account.key })).body;
		const [record] = (await server.api<{ _id: string }[]>(`/api/addresses/${enc(BOSS)}/messages?limit=1`, { key: account.key })).body;
		const text = (await server.api(`/api/text/${enc(BOSS)}/${record._id}`, { key: account.key })).text;
		const html = (await server.api(`/api/dirty/${enc(BOSS)}/${record._id}`, { key: account.key })).text;
		return { sent, messageId: `<${sent._id}@example.test>`, text, html };
	}

	/** The links of the buttons of an email's HTML, by label. */
	const links = (html: string) =>
		Object.fromEntries(
			[...html.matchAll(/<a href="([^"]+)"[^>]*>([^<]+)<\/a>/g)].map(([, href, label]) => [label, href.replace(/&amp;/g, '&')]),
		);

	it('shows the parameters of n8n’s own Send and Wait, with From', () => {
		const description = nodeDescription(fixture.n8n.loader, 'mailroom');
		const shown = shownParameters(description, { resource: 'email', operation: 'sendAndWait' });
		expect(shown).toEqual(['resource', 'operation', 'from', 'sendTo', 'subject', 'message', 'responseType', 'approvalOptions', 'options']);
		expect(shownParameters(description, { resource: 'email', operation: 'sendAndWait', responseType: 'reply' })).not.toContain(
			'approvalOptions',
		);
		expect(description.webhooks?.map(({ httpMethod, path, restartWebhook }) => [httpMethod, path, restartWebhook])).toEqual([
			['GET', '={{ $nodeId }}', true],
			['POST', '={{ $nodeId }}', true],
		]);
	});

	it('reply: sends with a reply hook, waits, and goes on with the answer Mailroom posts when the boss replies', async () => {
		const { server, account } = fixture;
		const waiting = await sendAndWait({ responseType: 'reply' });
		expect(waiting.output).toEqual([items]);
		expect(waiting.waitTill).toEqual(WAIT_INDEFINITELY);
		const mail = await lastMail();
		expect(mail.sent).toMatchObject({ from: ASKER, to: [BOSS], subject: 'Order 1042' });
		expect(mail.text.trim()).toBe('Ship it?');

		// Only Mailroom's signature resumes it: a forged answer is refused, and the execution keeps waiting.
		const forged = JSON.stringify({ _id: 'forged', strippedText: 'yes' });
		const refused = await postJson(waiting.resumeUrl, forged, signed('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', forged));
		expect(refused).toEqual({ status: 401, body: { error: 'Unauthorized', message: 'The webhook signature does not match' } });

		const [replyId] = await sendMail(server, {
			from: `Boss <${BOSS}>`,
			to: ASKER,
			subject: 'Re: Order 1042',
			text: 'Yes, ship it today.\n\nOn Monday asker wrote:\n> Ship it?\n',
			inReplyTo: mail.messageId,
		});
		const [[reply]] = await waiting.resumed;
		expect(reply.json).toMatchObject({
			_id: replyId,
			inbox: ASKER,
			from: [{ address: BOSS, name: 'Boss' }],
			strippedText: 'Yes, ship it today.',
			threadId: mail.sent.threadId,
			// The test's server verifies no senders (its auth would say whether Boss's domain vouches for Boss).
			auth: null,
		});
		const delivered = (await activity(server, account.key)).filter((entry) => entry.url === waiting.resumeUrl);
		expect(delivered.map((entry) => [entry.messageId, entry.status])).toEqual([[replyId, 'delivered']]);
	});

	it('reply with Limit Wait Time: the wait and the reply hook end together', async () => {
		const before = Date.now();
		const waiting = await sendAndWait({
			responseType: 'reply',
			options: { limitWaitTime: { values: { limitType: 'afterTimeInterval', resumeAmount: 2, resumeUnit: 'hours' } } },
		});
		const waitTill = waiting.waitTill!.getTime();
		expect(waitTill).toBeGreaterThanOrEqual(before + 2 * 3600_000);
		expect(waitTill).toBeLessThan(Date.now() + 2 * 3600_000);
		const { sent } = await lastMail();
		expect(await queryValue(fixture.server, 'SELECT expires_at FROM reply_hooks WHERE outgoing_id = ?', [sent._id])).toBe(waitTill);
	});

	it('approval: Disapprove and Approve open the resume URL; the first click resumes with { data: { approved } }', async () => {
		const waiting = await sendAndWait({
			responseType: 'approval',
			approvalOptions: { values: { approvalType: 'double', approveLabel: 'Ship', disapproveLabel: 'Hold' } },
		});
		const mail = await lastMail();
		const buttons = links(mail.html);
		expect(Object.keys(buttons)).toEqual(['Hold', 'Ship']);
		// Each link is signed by n8n with its answer: one cannot be turned into the other.
		const base = waiting.resumeUrl.replace(/\?.*/, '');
		expect(buttons.Ship).toMatch(new RegExp(`^${base}\\?approved=true&signature=\\w+$`));
		expect(buttons.Hold).toMatch(new RegExp(`^${base}\\?approved=false&signature=\\w+$`));
		const tampered = buttons.Hold.replace('approved=false', 'approved=true');
		expect((await fetch(tampered)).status).toBe(401);

		const page = await fetch(buttons.Hold);
		expect([page.status, page.headers.get('content-type'), await page.text()]).toEqual([
			200,
			'text/html; charset=utf-8',
			expect.stringContaining('Your response has been recorded'),
		]);
		expect(await waiting.resumed).toEqual([[{ json: { data: { approved: false } } }]]);
		// A second click resumes nothing: n8n says no action is required.
		const again = await fetch(buttons.Ship);
		expect([again.status, await again.text()]).toEqual([200, NO_ACTION_REQUIRED]);
	});

	it('approval, Approve only by default: one button', async () => {
		const waiting = await sendAndWait({});
		const buttons = links((await lastMail()).html);
		expect(Object.keys(buttons)).toEqual(['Approve']);
		expect(buttons.Approve).toMatch(/\/node-1\?approved=true&signature=\w+$/);
		await fetch(buttons.Approve);
		expect(await waiting.resumed).toEqual([[{ json: { data: { approved: true } } }]]);
	});

	it('free text: the button opens a form; what it posts resumes with { data: { text } }', async () => {
		const waiting = await sendAndWait({
			responseType: 'freeText',
			options: { messageButtonLabel: 'Answer', responseFormTitle: 'Order 1042', responseFormButtonLabel: 'Send' },
		});
		const buttons = links((await lastMail()).html);
		expect(buttons).toEqual({ Answer: waiting.resumeUrl });
		const form = await (await fetch(buttons.Answer)).text();
		expect(form).toMatch(/<h1>Order 1042<\/h1><p[^>]*>Ship it\?<\/p><form method="POST">/);
		expect(form).toContain('>Send</button>');

		const empty = await fetch(waiting.resumeUrl, { method: 'POST', body: new URLSearchParams({ text: ' ' }) });
		expect(empty.status).toBe(400);
		const posted = await fetch(waiting.resumeUrl, { method: 'POST', body: new URLSearchParams({ text: 'Ship on Friday' }) });
		expect(posted.status).toBe(200);
		expect(await waiting.resumed).toEqual([[{ json: { data: { text: 'Ship on Friday' } } }]]);
	});

	it('with On Error: Continue, a send Mailroom refuses outputs the error and waits for nothing', async () => {
		const waiting = await fixture.n8n.executeWaiting(
			'mailroom',
			{ resource: 'email', operation: 'sendAndWait', from: 'not-mine@example.test', sendTo: BOSS, subject: 's', message: 'm' },
			items,
			{ continueOnFail: true },
		);
		expect(waiting.output).toEqual([
			[{ json: { error: expect.stringMatching(/not an address of your account/), httpCode: '403' }, pairedItem: { item: 0 } }],
		]);
		expect(waiting.waitTill).toBeUndefined();
	});

	it('refuses a To that is not one address, and sends nothing', async () => {
		const before = (await lastMail()).sent._id;
		await expect(sendAndWait({ sendTo: 'a@example.test, b@example.test' })).rejects.toThrow('Invalid email address');
		expect((await lastMail()).sent._id).toBe(before);
	});
});
