import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import type { INodeProperties } from 'n8n-workflow';
import type { WebhookSubscription } from 'mailroom-server/dist/schemas/webhook';
import { enc, sendMail } from '../../helpers/messages';
import { startDnsServer, type TestDnsServer } from '../../helpers/dns-server';
import { forwardingOf } from '../../helpers/addresses';
import { waitFor } from '../../helpers/webhook-receiver';
import { startTestRelay, type TestRelay } from '../../helpers/smtp-relay';
import type { DeliveryEvent, EventSubscription } from 'mailroom-server/dist/schemas/delivery-event';
import { activity, PAYLOAD_FIELDS, subscribe, webhookSecret } from '../../helpers/webhooks';
import {
	loadedNode,
	nodeDescription,
	postJson,
	property,
	shownParameter,
	signed,
	startNodeFixture,
	type NodeFixture,
	type Trigger,
} from '../../helpers/n8n';

/**
 * Mailroom Trigger in n8n-core's real HookContext (checkExists/create/delete) and WebhookContext
 * (webhook()) against a real server that delivers real SMTP mail to the trigger's webhook URL.
 */
describe('Mailroom Trigger', () => {
	let fixture: NodeFixture;
	let dns: TestDnsServer;
	let relay: TestRelay;
	beforeAll(async () => {
		// Mail the account sends to other domains goes to a relay that refuses it (a failed recipient), and to the test domain's
		// addresses, which answer as a remote server would (a bounce).
		relay = await startTestRelay({ refuse: () => ({ code: 550, message: '5.1.1 No such user here' }) });
		// The server checks who sent its mail against a DNS server of the test's: sender.test sends from this machine, with
		// a DMARC policy; bank.test never does, so mail "from" it is forged.
		dns = await startDnsServer({
			txt: {
				'sender.test': ['v=spf1 ip4:127.0.0.1 -all'],
				'_dmarc.sender.test': ['v=DMARC1; p=quarantine'],
				'bank.test': ['v=spf1 ip4:192.0.2.10 -all'],
				'_dmarc.bank.test': ['v=DMARC1; p=reject'],
			},
		});
		fixture = await startNodeFixture({
			credits: 10,
			config: { verifySenders: true, dnsServers: [dns.address], relayUrl: relay.url, testDomain: 'tests.example' },
		});
	});
	afterAll(async () => {
		await fixture.stop();
		await dns.close();
		await relay.close();
	});

	const record = (email: string) => forwardingOf(fixture.server, fixture.account.key, email);
	/** An Email Address typed By Address (version 1.2 on), as the editor saves it. */
	const byAddress = (email: string) => ({ __rl: true, mode: 'email', value: email });
	/** The node's subtitle as the editor shows it under the node. */
	const subtitleOf = ({ workflow, node }: Trigger) =>
		workflow.expression.getSimpleParameterValue(node, nodeDescription(fixture.n8n.loader, 'mailroomTrigger').subtitle, 'internal', {});
	const secret = () => webhookSecret(fixture.server, fixture.account.key);

	describe('as n8n loads it', () => {
		it('is a webhook trigger with the three webhook methods', () => {
			const d = nodeDescription(fixture.n8n.loader, 'mailroomTrigger');
			expect(d).toMatchObject({ displayName: 'Mailroom Trigger', group: ['trigger'], inputs: [], outputs: ['main'] });
			expect(d.webhooks).toEqual([{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' }]);
			const node = loadedNode(fixture.n8n.loader, 'mailroomTrigger');
			const methods = node.webhookMethods!.default;
			expect(Object.keys(methods ?? {}).sort()).toEqual(['checkExists', 'create', 'delete']);
			expect(typeof node.webhook).toBe('function');
		});

		it('asks for the address (picked from version 1.2), reserves it, filters, and simplifies by default from version 1.1', () => {
			const d = nodeDescription(fixture.n8n.loader, 'mailroomTrigger');
			expect(d).toMatchObject({ version: [1, 1.1, 1.2], defaultVersion: 1.2 });
			expect(d.properties.map((p) => [p.name, p.type, p.default, p.displayOptions?.show?.['@version']])).toEqual([
				['subscriptionNotice', 'notice', '', undefined],
				['event', 'options', 'messageReceived', undefined],
				['email', 'string', '', [1, 1.1]],
				['email', 'resourceLocator', { mode: 'list', value: '' }, undefined],
				['reserveAddress', 'boolean', true, undefined],
				['simplify', 'boolean', false, [1]],
				['simplify', 'boolean', true, undefined],
				['filters', 'collection', {}, undefined],
				['options', 'collection', {}, undefined],
			]);
			expect(property(d.properties, 'filters')!.options!.map((option) => option.name)).toEqual([
				'authenticated',
				'from',
				'hasAttachments',
				'subject',
			]);
			expect(property(d.properties, 'options')!.options!.map((option) => [option.name, (option as INodeProperties).default])).toEqual([
				['dataPropertyAttachmentsPrefixName', 'attachment_'],
				['downloadAttachments', false],
				['includeRawSource', false],
				['markAsRead', false],
			]);
			expect(property(d.properties, 'subscriptionNotice')!.displayName).toMatch(
				/reserves the address .* adds a webhook subscription .* own webhook and other subscriptions are left alone/,
			);
			expect(d.eventTriggerDescription).toMatch(/send a message to the address/);
			// Instead of n8n's "Go to Mailroom and create an event": what to do, with links n8n's panel acts on.
			expect(d.triggerPanel).toMatchObject({
				header: "Send an email to the trigger's Email Address",
				executionsHelp: {
					inactive: expect.stringMatching(/Listen for test event.*send an email to the Email Address.*data-key="activate"/),
					active: expect.stringMatching(/every message that arrives at the Email Address.*data-key="executions"/),
				},
				activationHint: expect.stringMatching(/data-key="activate".*every email sent to the Email Address then runs it/),
			});
			expect(d.properties.filter((p) => p.type !== 'notice' && !p.description?.trim())).toEqual([]);
		});

		it('shows Email Address as a text field before version 1.2, picked from a list or typed from it; Simplify is on from 1.1', () => {
			const d = nodeDescription(fixture.n8n.loader, 'mailroomTrigger');
			expect(shownParameter(d, {}, 'email').type).toBe('resourceLocator');
			expect(shownParameter(d, {}, 'email').modes!.map((mode) => [mode.name, mode.typeOptions?.searchListMethod])).toEqual([
				['list', 'searchAddresses'],
				['email', undefined],
			]);
			expect(shownParameter(d, {}, 'email', 1.1).type).toBe('string');
			expect(shownParameter(d, {}, 'email', 1).type).toBe('string');
			expect([1, 1.1, 1.2].map((version) => shownParameter(d, {}, 'simplify', version).default)).toEqual([false, true, true]);
		});
	});

	describe('against a real server', () => {
		const subscriptionsOf = async (email: string) =>
			(await fixture.server.api<WebhookSubscription[]>(`/api/addresses/${enc(email)}/webhooks`, { key: fixture.account.key })).body;
		const runsOf = (trigger: Trigger, count = 1) =>
			waitFor(() => (trigger.runs.length >= count ? trigger.runs : undefined), `${count} run(s) of the workflow`);

		it("activation reserves the address and adds this workflow's subscription; a delivery runs it; deactivation removes only it", async () => {
			const { server, n8n, account } = fixture;
			// Typed By Address, not reserved yet: Reserve Address (on by default) reserves it.
			const trigger = await n8n.trigger('mailroomTrigger', { email: byAddress(' Orders@Example.test ') });
			expect(subtitleOf(trigger)).toBe(' Orders@Example.test ');
			expect(trigger.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhook\/test-webhook-id\/webhook$/);
			expect(await trigger.hook('checkExists')).toBe(false);

			expect(await trigger.hook('create')).toBe(true);
			expect(await record('orders@example.test')).toMatchObject({ _id: 'orders@example.test', owner: account.id, webhook: null });
			const [subscription] = await subscriptionsOf('orders@example.test');
			expect(subscription).toMatchObject({ address: 'orders@example.test', url: trigger.url, filter: null });
			expect(trigger.staticData()).toEqual({
				subscriptions: { [trigger.url]: { email: 'Orders@Example.test', id: subscription._id } },
				secret: await secret(),
			});
			expect(await trigger.hook('checkExists')).toBe(true);

			// Real mail; the server signs the delivery and webhook() verifies it. Simplify is on (version 1.1).
			const [id] = await sendMail(server, {
				to: 'orders@example.test',
				cc: 'Boss <boss@example.org>',
				from: 'Alice <alice@sender.test>',
				subject: 'Order 1',
				date: new Date('2026-11-20T09:30:00Z'),
				messageId: '<order-1@sender.test>',
				text: 'two boxes',
				html: '<p>two <b>boxes</b></p>',
				attachments: [{ filename: 'order.csv', content: 'boxes,2\n', contentType: 'text/csv' }],
			});
			const [run] = await runsOf(trigger);
			const [stored] = (await server.api<MessageRecord[]>(`/api/addresses/orders%40example.test/messages`, { key: account.key })).body;
			expect(run).toEqual([
				[
					{
						json: {
							_id: id,
							inbox: 'orders@example.test',
							from: [{ address: 'alice@sender.test', name: 'Alice' }],
							fromAddress: 'alice@sender.test',
							fromName: 'Alice',
							to: [{ address: 'orders@example.test', name: '' }],
							cc: [{ address: 'boss@example.org', name: 'Boss' }],
							replyTo: null,
							subject: 'Order 1',
							date: '2026-11-20T09:30:00.000Z',
							messageId: '<order-1@sender.test>',
							text: expect.stringMatching(/^two boxes\n?$/),
							strippedText: 'two boxes',
							html: '<p>two <b>boxes</b></p>',
							attachments: [
								{
									filename: 'order.csv',
									contentType: 'text/csv',
									size: 8,
									checksum: stored.attachments![0],
									contentId: null,
									url: expect.stringMatching(new RegExp(`/api/addresses/orders%40example\\.test/messages/${id}/attachments/`)),
								},
							],
							codes: [],
							auth: {
								spf: { result: 'pass', domain: 'sender.test' },
								dkim: [],
								dmarc: { result: 'pass', policy: 'quarantine', domain: 'sender.test' },
								arc: { result: 'none' },
								authenticated: true,
							},
							threadId: stored.threadId,
							received: stored.received,
						},
					},
				],
			]);
			// The address has no webhook of its own: the delivery was the subscription's.
			expect((await server.api(`/api/addresses/orders%40example.test/messages/${id}/webhook-status`, { key: account.key })).status).toBe(
				404,
			);
			const [attempt] = await activity(server, account.key, '?address=orders%40example.test');
			expect(attempt).toMatchObject({ subscriptionId: subscription._id, status: 'delivered', statusCode: 200, messageId: id });

			expect(await trigger.hook('delete')).toBe(true);
			expect(await subscriptionsOf('orders@example.test')).toEqual([]);
			expect(trigger.staticData()).toEqual({ subscriptions: {}, secret: await secret(), accepted: [attempt.deliveryId] });
			expect(await trigger.hook('checkExists')).toBe(false);
		});

		it("leaves the address's webhook and other subscriptions alone through activate, listen and deactivate", async () => {
			const { server, n8n, account } = fixture;
			const email = 'shared@example.test';
			await server.api(`/api/addresses/${enc(email)}`, {
				key: account.key,
				method: 'POST',
				body: { webhook: 'https://crm.example.org/in' },
			});
			const other = await subscribe(server, account.key, email, { url: 'https://zapier.example.org/hook' });

			const production = await n8n.trigger('mailroomTrigger', { email: byAddress(email) });
			const listening = await n8n.trigger('mailroomTrigger', { email: byAddress(email) }, { test: true });
			await production.hook('create');
			await listening.hook('create', 'manual');
			expect((await subscriptionsOf(email)).map((subscription) => subscription.url)).toEqual([
				'https://zapier.example.org/hook',
				production.url,
				listening.url,
			]);
			// While listening, a message runs the test and the active workflow alike.
			const [id] = await sendMail(server, { to: email, subject: 'while listening' });
			for (const trigger of [production, listening]) expect((await runsOf(trigger))[0][0][0].json._id).toBe(id);

			await listening.hook('delete', 'manual');
			expect((await subscriptionsOf(email)).map((subscription) => subscription.url)).toEqual([
				'https://zapier.example.org/hook',
				production.url,
			]);
			await production.hook('delete');
			expect(await subscriptionsOf(email)).toEqual([other]);
			expect((await record(email)).webhook).toBe('https://crm.example.org/in');
		});

		it('two active workflows on one address both run for each message', async () => {
			const { server, n8n } = fixture;
			const first = await n8n.trigger('mailroomTrigger', { email: byAddress('two@example.test') }, { webhookId: 'first' });
			const second = await n8n.trigger('mailroomTrigger', { email: byAddress('two@example.test') }, { webhookId: 'second' });
			await first.hook('create');
			await second.hook('create');
			const [one] = await sendMail(server, { to: 'two@example.test', subject: 'one' });
			const [two] = await sendMail(server, { to: 'two@example.test', subject: 'two' });
			for (const trigger of [first, second]) {
				const runs = await runsOf(trigger, 2);
				expect(runs.map((run) => run[0][0].json._id).sort()).toEqual([one, two].sort());
			}
			await new Promise((resolve) => setTimeout(resolve, 300));
			expect([first.runs.length, second.runs.length]).toEqual([2, 2]);
			await first.hook('delete');
			await second.hook('delete');
		});

		it('Mark as Read marks each message read as its execution starts; without it the message stays unread', async () => {
			const { server, n8n, account } = fixture;
			const readOf = async (email: string, id: string) =>
				(await server.api<MessageRecord>(`/api/addresses/${enc(email)}/messages/${id}`, { key: account.key })).body.read;
			const marking = await n8n.trigger('mailroomTrigger', { email: byAddress('tickets@example.test'), options: { markAsRead: true } });
			const leaving = await n8n.trigger('mailroomTrigger', { email: byAddress('notes@example.test') }, { webhookId: 'leaving' });
			await marking.hook('create');
			await leaving.hook('create');
			const [ticket] = await sendMail(server, { to: 'tickets@example.test', subject: 'Ticket 1' });
			const [note] = await sendMail(server, { to: 'notes@example.test', subject: 'Note 1' });
			expect((await runsOf(marking))[0][0][0].json._id).toBe(ticket);
			expect((await runsOf(leaving))[0][0][0].json._id).toBe(note);
			expect(await readOf('tickets@example.test', ticket)).toBe(true);
			// Never marked: null, as for any message nothing has read.
			expect(await readOf('notes@example.test', note)).toBeNull();
			await marking.hook('delete');
			await leaving.hook('delete');
		});

		it('Download Attachments gives each attachment as binary data, its bytes those sent', async () => {
			const { server, n8n } = fixture;
			const pdf = Buffer.from(Array.from({ length: 100_000 }, (_, index) => (index * 31) % 256));
			const trigger = await n8n.trigger('mailroomTrigger', {
				email: byAddress('invoices@example.test'),
				options: { downloadAttachments: true, dataPropertyAttachmentsPrefixName: 'file_' },
			});
			await trigger.hook('create');
			await sendMail(server, {
				to: 'invoices@example.test',
				subject: 'Invoice',
				attachments: [
					{ filename: 'invoice.pdf', content: pdf, contentType: 'application/pdf' },
					{ filename: 'terms.txt', content: 'pay in 30 days', contentType: 'text/plain' },
				],
			});
			const [[[item]]] = await runsOf(trigger);
			expect(Object.keys(item.binary!)).toEqual(['file_0', 'file_1']);
			expect(item.binary!.file_0).toMatchObject({ fileName: 'invoice.pdf', mimeType: 'application/pdf' });
			expect(item.binary!.file_1).toMatchObject({ fileName: 'terms.txt', mimeType: 'text/plain' });
			expect(Buffer.from(item.binary!.file_0.data, 'base64').equals(pdf)).toBe(true);
			expect(Buffer.from(item.binary!.file_1.data, 'base64').toString()).toBe('pay in 30 days');
			expect((item.json.attachments as unknown[]).length).toBe(2);
			await trigger.hook('delete');
		});

		it('Filters go to the subscription: mail that does not pass starts no run; changed filters replace it', async () => {
			const { server, n8n } = fixture;
			const email = 'filtered@example.test';
			const filters = { from: 'billing', subject: 'invoice', hasAttachments: true };
			const trigger = await n8n.trigger('mailroomTrigger', { email: byAddress(email), filters });
			await trigger.hook('create');
			expect((await subscriptionsOf(email))[0].filter).toEqual(filters);
			const attachments = [{ filename: 'a.pdf', content: 'pdf' }];
			await sendMail(server, { to: email, from: 'billing@acme.example', subject: 'Hello', attachments });
			await sendMail(server, { to: email, from: 'shop@acme.example', subject: 'Invoice 1', attachments });
			await sendMail(server, { to: email, from: 'billing@acme.example', subject: 'Invoice 2' });
			const [passes] = await sendMail(server, { to: email, from: 'Billing <b@acme.example>', subject: 'Your INVOICE 3', attachments });
			const [run] = await runsOf(trigger);
			expect(run[0][0].json._id).toBe(passes);
			await new Promise((resolve) => setTimeout(resolve, 300));
			expect(trigger.runs).toHaveLength(1);

			// n8n re-activates with changed filters: the subscription does not count as there, and create replaces it.
			const changed = await n8n.trigger('mailroomTrigger', { email: byAddress(email), filters: { subject: 'receipt' } });
			expect(await changed.hook('checkExists')).toBe(false);
			await changed.hook('create');
			expect((await subscriptionsOf(email)).map((subscription) => subscription.filter)).toEqual([{ subject: 'receipt' }]);
			await changed.hook('delete');
		});

		it('Authenticated Senders Only leaves forged senders out: only mail whose sender passed starts a run, its item saying so', async () => {
			const { server, n8n } = fixture;
			const email = 'payments@example.test';
			const trigger = await n8n.trigger('mailroomTrigger', { email: byAddress(email), filters: { authenticated: true } });
			await trigger.hook('create');
			expect((await subscriptionsOf(email))[0].filter).toEqual({ authenticated: true });
			await sendMail(server, { to: email, from: 'Bank <security@bank.test>', subject: 'Confirm your payment details' });
			const [genuine] = await sendMail(server, { to: email, from: 'Alice <alice@sender.test>', subject: 'Payment sent' });
			const [run] = await runsOf(trigger);
			expect(run[0][0].json).toMatchObject({ _id: genuine, auth: { authenticated: true, dmarc: { result: 'pass' } } });
			await new Promise((resolve) => setTimeout(resolve, 300));
			expect(trigger.runs).toHaveLength(1);
			await trigger.hook('delete');
		});

		it('the simplified item names the first sender, the Reply-To addresses (names decoded), the Date and the Message-ID', async () => {
			const { server, n8n } = fixture;
			const trigger = await n8n.trigger('mailroomTrigger', { email: byAddress('fields@example.test') });
			await trigger.hook('create');
			const [id] = await sendMail(server, {
				to: 'fields@example.test',
				from: '"Lee, Ann" <ann@sender.test>',
				replyTo: 'Grüße Team <team@sender.test>, help@sender.test',
				date: new Date('2026-11-20T09:30:00Z'),
				messageId: '<fields-1@sender.test>',
				subject: 'Fields',
			});
			const [second] = await sendMail(server, { to: 'fields@example.test', subject: 'No Reply-To' });
			const runs = await runsOf(trigger, 2);
			const item = (messageId: string) => runs.map((run) => run[0][0].json).find((json) => json._id === messageId)!;
			expect(item(id)).toMatchObject({
				fromAddress: 'ann@sender.test',
				fromName: 'Lee, Ann',
				replyTo: [
					{ address: 'team@sender.test', name: 'Grüße Team' },
					{ address: 'help@sender.test', name: '' },
				],
				date: '2026-11-20T09:30:00.000Z',
				messageId: '<fields-1@sender.test>',
			});
			expect(item(second)).toMatchObject({ fromAddress: 'sender@sender.test', fromName: '', replyTo: null });
			await trigger.hook('delete');
		});

		it('Include Raw Source adds the message as received; version 1 keeps its whole payload unless simplified', async () => {
			const { server, n8n } = fixture;
			const raw = await n8n.trigger('mailroomTrigger', { email: byAddress('raw@example.test'), options: { includeRawSource: true } });
			const v1 = await n8n.trigger('mailroomTrigger', { email: 'raw@example.test' }, { version: 1, webhookId: 'v1' });
			await raw.hook('create');
			await v1.hook('create');
			await sendMail(server, { to: 'raw@example.test', subject: 'Raw please' });
			const [[[withRaw]]] = await runsOf(raw);
			expect(withRaw.json.raw).toEqual(expect.stringContaining('\r\nSubject: Raw please\r\n'));
			const [[[whole]]] = await runsOf(v1);
			expect(Object.keys(whole.json).sort()).toEqual([...PAYLOAD_FIELDS].sort());
			await raw.hook('delete');
			await v1.hook('delete');
		});

		it('runs once for a redelivery of a delivery it accepted (same webhook-id), and refuses a forged one', async () => {
			const { n8n } = fixture;
			const trigger = await n8n.trigger('mailroomTrigger', { email: byAddress('once@example.test') });
			await trigger.hook('create');
			const body = JSON.stringify({ _id: 'Redelivered00001', subject: 'twice' });
			const headers = signed(trigger.staticData().secret as string, body, new Date(), 'msg_redelivered');
			expect(await postJson(trigger.url, body, headers)).toEqual({ status: 200, body: { message: 'Workflow was started' } });
			expect(await postJson(trigger.url, body, headers)).toEqual({ status: 200, body: { received: true, duplicate: true } });
			expect(trigger.runs).toHaveLength(1);

			const forged = signed('whsec_' + Buffer.from('not the secret').toString('base64'), body, new Date(), 'msg_forged');
			expect((await postJson(trigger.url, body, forged)).status).toBe(401);
			expect(trigger.runs).toHaveLength(1);
			await trigger.hook('delete');
		});

		it('after the secret is rotated past its overlap, webhook() fetches the new one once and keeps it', async () => {
			const { server, n8n, account } = fixture;
			const trigger = await n8n.trigger('mailroomTrigger', { email: byAddress('rotated@example.test'), simplify: true });
			await trigger.hook('create');
			const first = trigger.staticData().secret as string;
			// Two rotations: deliveries are signed with the newest secret and the one before, not the first.
			await server.api('/api/webhook-secret/rotate', { key: account.key, method: 'POST' });
			const newest = (await server.api<{ secret: string }>('/api/webhook-secret/rotate', { key: account.key, method: 'POST' })).body.secret;
			expect(newest).not.toBe(first);

			const [id] = await sendMail(server, { to: 'rotated@example.test', subject: 'after rotation' });
			const [run] = await waitFor(() => (trigger.runs.length > 0 ? trigger.runs : undefined), 'the delivery');
			expect(run[0][0].json).toMatchObject({ _id: id, subject: 'after rotation' });
			expect(trigger.staticData().secret).toBe(newest);
			// A forged call after that still fails (the secret is fetched again, and does not match either).
			const body = JSON.stringify({ _id: 'Forged0000000002' });
			expect((await postJson(trigger.url, body, signed(first, body))).status).toBe(401);
			await trigger.hook('delete');
		});

		it("on a domain's catch-all address, picked from the list, it gets the mail of every address of the domain", async () => {
			const { server, n8n, account } = fixture;
			await server.domains.claim('shop.test', account.id);
			await server.api('/api/domains/shop.test', { key: account.key, method: 'PUT', body: { catchAll: 'all@shop.test' } });
			await server.api('/api/addresses/desk%40shop.test', { key: account.key, method: 'POST' });
			// The editor's list, searched as typed: the action node's listSearch, in n8n-core's LoadOptionsContext.
			const search = (filter?: string) => n8n.listSearch('mailroomTrigger', 'searchAddresses', { filter });
			expect(await search('SHOP.test')).toEqual({
				results: [
					{ name: 'all@shop.test (catch-all of shop.test)', value: 'all@shop.test' },
					{ name: 'desk@shop.test', value: 'desk@shop.test' },
				],
			});
			expect(await search('catch-all of shop')).toEqual({
				results: [{ name: 'all@shop.test (catch-all of shop.test)', value: 'all@shop.test' }],
			});
			// An address of the account's domain is the account's without a reservation: typed in the search, it is offered.
			expect(await search('Sales@shop.test')).toEqual({ results: [{ name: 'sales@shop.test (in shop.test)', value: 'sales@shop.test' }] });
			expect(await search('sales@elsewhere.test')).toEqual({ results: [] });

			const [picked] = (await search('catch-all')).results;
			const trigger = await n8n.trigger('mailroomTrigger', { email: { __rl: true, mode: 'list', value: picked.value } });
			expect(subtitleOf(trigger)).toBe('all@shop.test');
			await trigger.hook('create');
			const [id] = await sendMail(server, { to: 'anything-123@shop.test', subject: 'to the domain' });
			const [run] = await waitFor(() => (trigger.runs.length > 0 ? trigger.runs : undefined), 'the delivery');
			expect(run[0][0].json).toMatchObject({ _id: id, to: [{ address: 'anything-123@shop.test' }], subject: 'to the domain' });
			await trigger.hook('delete');
			expect(await subscriptionsOf('all@shop.test')).toEqual([]);
		});

		it("a version 1.1 trigger's plain-string Email Address still activates, runs and deactivates", async () => {
			const { server, n8n } = fixture;
			const trigger = await n8n.trigger('mailroomTrigger', { email: ' Legacy@Example.test ' }, { version: 1.1 });
			expect(subtitleOf(trigger)).toBe(' Legacy@Example.test ');
			expect(await trigger.hook('create')).toBe(true);
			const [subscription] = await subscriptionsOf('legacy@example.test');
			expect(subscription).toMatchObject({ address: 'legacy@example.test', url: trigger.url });
			expect(await trigger.hook('checkExists')).toBe(true);
			const [id] = await sendMail(server, { to: 'legacy@example.test', subject: 'still here' });
			const [run] = await runsOf(trigger);
			expect(run[0][0].json).toMatchObject({ _id: id, inbox: 'legacy@example.test', subject: 'still here' });
			expect(await trigger.hook('delete')).toBe(true);
			expect(await subscriptionsOf('legacy@example.test')).toEqual([]);
		});

		it('without Reserve Address an address the account does not own fails clearly; an address of another account too', async () => {
			const { server, n8n, account } = fixture;
			const off = await n8n.trigger('mailroomTrigger', { email: byAddress('free@example.test'), reserveAddress: false });
			await expect(off.hook('create')).rejects.toMatchObject({
				message:
					'Your account does not own free@example.test: turn on Reserve Address, or reserve the address first (Mailroom node, Address → Reserve)',
				description: expect.stringMatching(/^With Reserve Address on, the trigger reserves the address/),
			});
			expect((await server.api('/api/addresses/free%40example.test', { key: account.key })).status).toBe(404);

			const bob = await server.createAccount('bob');
			await server.api('/api/addresses/bobs%40example.test', {
				key: bob.key,
				method: 'POST',
				body: { webhook: 'https://bob.example.org/hook' },
			});
			const foreign = await n8n.trigger('mailroomTrigger', { email: byAddress('bobs@example.test') });
			expect(await foreign.hook('checkExists')).toBe(false);
			await expect(foreign.hook('create')).rejects.toMatchObject({ httpCode: '403' });
			expect(await foreign.hook('delete')).toBe(true);
			expect((await forwardingOf(server, bob.key, 'bobs@example.test')).webhook).toBe('https://bob.example.org/hook');
			expect((await server.api<WebhookSubscription[]>('/api/addresses/bobs%40example.test/webhooks', { key: bob.key })).body).toEqual([]);
		});
	});

	describe('events about sent mail', () => {
		it('Sent Email Delivered, Bounced and Failed: each its own event subscription, run by its events, removed on deactivation', async () => {
			const { server, n8n, account } = fixture;
			expect((await server.api('/api/addresses/ann.sends%40example.test', { method: 'POST', key: account.key })).status).toBe(200);
			const events = ['sentEmailDelivered', 'sentEmailBounced', 'sentEmailFailed'] as const;
			const triggers = [];
			for (const event of events) {
				const trigger = await n8n.trigger('mailroomTrigger', { event }, { webhookId: `events-${event}` });
				expect(await trigger.hook('checkExists')).toBe(false);
				expect(await trigger.hook('create')).toBe(true);
				expect(await trigger.hook('checkExists')).toBe(true);
				triggers.push(trigger);
			}
			const listed = async () => (await server.api<EventSubscription[]>('/api/event-webhooks', { key: account.key })).body;
			expect((await listed()).map((s) => [s.url, s.events])).toEqual(
				triggers.map((trigger, i) => [trigger.url, [['delivered', 'bounced', 'failed'][i]]]),
			);

			const send = (to: string) =>
				server.api('/api/outgoing-messages', {
					method: 'POST',
					key: account.key,
					body: { from: 'ann.sends@example.test', to, subject: `to ${to}`, text: 'hi' },
				});
			expect((await send('bounce@tests.example')).status).toBe(200);
			expect((await send('nobody@remote.example')).status).toBe(200);
			const [delivered, bounced, failed] = await Promise.all(
				triggers.map((trigger) =>
					waitFor(() => (trigger.runs.length ? (trigger.runs[0][0][0].json as unknown as DeliveryEvent) : undefined), 'a run'),
				),
			);
			expect(delivered).toMatchObject({ type: 'delivered', recipient: 'bounce@tests.example', from: 'ann.sends@example.test' });
			expect(bounced).toMatchObject({ type: 'bounced', recipient: 'bounce@tests.example', statusCode: '5.1.1' });
			expect(bounced.bounceMessageId).toEqual(expect.any(String));
			expect(failed).toMatchObject({ type: 'failed', recipient: 'nobody@remote.example', diagnostic: expect.stringMatching(/^550 /) });
			// Each trigger ran on its own event type only.
			expect(triggers.map((trigger) => trigger.runs.length)).toEqual([1, 1, 1]);

			for (const trigger of triggers) expect(await trigger.hook('delete')).toBe(true);
			expect(await listed()).toEqual([]);
			expect(await triggers[0].hook('checkExists')).toBe(false);
		});
	});

	describe('behind a public URL n8n does not use', () => {
		let behindProxy: NodeFixture;
		beforeAll(async () => {
			// The payload's attachment urls start with this (a proxy's address, with a path); n8n reaches Mailroom at its Base URL.
			behindProxy = await startNodeFixture({ config: { publicUrl: 'https://mail.example.test/mailroom' } });
		});
		afterAll(() => behindProxy.stop());

		it("Download Attachments fetches each attachment at the credential's Base URL, not at the payload's url", async () => {
			const { server, n8n } = behindProxy;
			const trigger = await n8n.trigger('mailroomTrigger', {
				email: byAddress('scans@example.test'),
				options: { downloadAttachments: true },
			});
			await trigger.hook('create');
			await sendMail(server, {
				to: 'scans@example.test',
				attachments: [{ filename: 'scan.png', content: Buffer.from('not really a png'), contentType: 'image/png' }],
			});
			const [[[item]]] = await waitFor(() => (trigger.runs.length ? trigger.runs : undefined), 'a run of the workflow');
			expect((item.json.attachments as { url: string }[])[0].url).toMatch(/^https:\/\/mail\.example\.test\/mailroom\/api\/addresses\//);
			expect(Buffer.from(item.binary!.attachment_0.data, 'base64').toString()).toBe('not really a png');
			await trigger.hook('delete');
		});
	});
});
