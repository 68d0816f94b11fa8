import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { enc, sendMail } from '../../helpers/messages';
import { WebhookReceiver, waitFor } from '../../helpers/webhook-receiver';

describe('webhookSlack: a Slack summary through the webhook deliveries', () => {
	let server: TestMailroom;
	let slack: WebhookReceiver;
	let hooks: WebhookReceiver;
	let ann: { id: string; key: string };
	beforeAll(async () => {
		slack = new WebhookReceiver();
		hooks = new WebhookReceiver();
		await Promise.all([slack.listen(), hooks.listen()]);
		server = await startTestMailroom({ webhookRetrySchedule: [0, 200, 200], webhookTimeout: 500 });
		ann = server.createAccount('ann');
	});
	afterAll(async () => {
		await server.stop();
		await Promise.all([slack.close(), hooks.close()]);
	});

	const reserve = (email: string, body: Record<string, unknown>) =>
		server.api(`/api/addresses/${enc(email)}`, { method: 'POST', key: ann.key, body });
	const postsTo = (receiver: WebhookReceiver, path: string) => receiver.requests.filter((request) => request.url === path);
	/** Waits for the first POST to `path`. */
	const firstPost = (receiver: WebhookReceiver, path: string) => waitFor(() => postsTo(receiver, path)[0], `a POST to ${path}`);

	it('posts a short summary as {"text"}, without From and To unless asked for', async () => {
		await reserve('slack@example.test', { webhookSlack: `${slack.url}/plain` });
		await sendMail(server, {
			to: 'slack@example.test',
			from: 'Ann <ann@sender.test>',
			subject: 'Build <failed> & more',
			text: 'Line one\n\nline two',
		});
		const post = await firstPost(slack, '/plain');
		expect(post.method).toBe('POST');
		expect(post.headers['content-type']).toMatch(/^application\/json/);
		expect(JSON.parse(post.body)).toEqual({
			text: 'New mail for slack@example.test: *Build &lt;failed&gt; &amp; more*\n> Line one line two',
		});
	});

	it('adds From and To with webhookSlackToFrom, and shortens a long text', async () => {
		await reserve('slack-tf@example.test', { webhookSlack: `${slack.url}/to-from`, webhookSlackToFrom: true });
		await sendMail(server, { to: 'slack-tf@example.test', from: 'Ann <ann@sender.test>', subject: 'Hello', text: 'x'.repeat(500) });
		const post = await firstPost(slack, '/to-from');
		const lines = (JSON.parse(post.body).text as string).split('\n');
		expect(lines.slice(0, 3)).toEqual([
			'New mail for slack-tf@example.test: *Hello*',
			'From: Ann &lt;ann@sender.test&gt;',
			'To: slack-tf@example.test',
		]);
		expect(lines[3]).toBe(`> ${'x'.repeat(300)}…`);
	});

	it('goes beside the webhook, each with its own body; the webhook status shows the webhook', async () => {
		await reserve('both@example.test', { webhook: `${hooks.url}/both`, webhookSlack: `${slack.url}/both` });
		const [id] = await sendMail(server, { to: 'both@example.test', subject: 'Both' });
		const hook = await firstPost(hooks, '/both');
		const post = await firstPost(slack, '/both');
		expect(JSON.parse(hook.body)).toMatchObject({ _id: id, subject: 'Both', inbox: 'both@example.test' });
		expect(hook.headers['webhook-signature']).toBeDefined();
		expect(JSON.parse(post.body)).toEqual({ text: 'New mail for both@example.test: *Both*\n> hello' });
		expect(post.headers['webhook-signature']).toBeUndefined();
		const status = await waitFor(
			() =>
				server
					.api(`/api/addresses/${enc('both@example.test')}/messages/${id}/webhook-status`, { key: ann.key })
					.then((r) => r.body.status === 'delivered' && r.body),
			'the webhook status',
		);
		expect(status.url).toBe(`${hooks.url}/both`);
	});

	it('is retried like a webhook, and shows in Recent Activity', async () => {
		let flakyCalls = 0;
		slack.reply = (request) => (request.url === '/flaky' && flakyCalls++ === 0 ? { status: 503 } : { status: 200 });
		await reserve('flaky@example.test', { webhookSlack: `${slack.url}/flaky` });
		await sendMail(server, { to: 'flaky@example.test', subject: 'Retry' });
		await waitFor(() => postsTo(slack, '/flaky').some((request) => request.status === 200), 'the retried Slack post');
		expect(postsTo(slack, '/flaky').map((request) => request.status)).toEqual([503, 200]);
		const activity = await waitFor(
			() =>
				server
					.api('/api/webhook-activity?address=flaky%40example.test', { key: ann.key })
					.then((list) => list.body.length === 2 && list.body),
			'two attempts in Recent Activity',
		);
		expect(activity.map((entry: { status: string; url: string }) => [entry.status, entry.url])).toEqual([
			['delivered', `${slack.url}/flaky`],
			['retrying', `${slack.url}/flaky`],
		]);
	});

	it("uses the catch-all address's Slack webhook for addresses of the domain without one", async () => {
		await server.api('/api/domains/slack-domain.test', { method: 'POST', key: ann.key });
		await server.api('/api/domains/slack-domain.test', { method: 'PUT', key: ann.key, body: { catchAll: 'all@slack-domain.test' } });
		await server.api(`/api/addresses/${enc('all@slack-domain.test')}`, {
			method: 'PUT',
			key: ann.key,
			body: { webhookSlack: `${slack.url}/catch-all` },
		});
		await sendMail(server, { to: 'anyone@slack-domain.test', subject: 'Caught' });
		const post = await firstPost(slack, '/catch-all');
		expect(JSON.parse(post.body).text).toMatch(/^New mail for anyone@slack-domain\.test: \*Caught\*/);
	});
});
