import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { enc, sendMail } from '../../helpers/messages';
import { WebhookReceiver } from '../../helpers/webhook-receiver';
import { firstPost, jsonBody } from '../../helpers/effects-webhooks';

describe('webhookSlack of a catch-all address', () => {
	let server: TestMailroom;
	let slack: WebhookReceiver;
	let ann: { id: string; key: string };
	beforeAll(async () => {
		slack = new WebhookReceiver();
		await slack.listen();
		server = await startTestMailroom({ webhookRetrySchedule: [0, 200, 200], webhookTimeout: 500 });
		ann = server.createAccount('ann');
	});
	afterAll(async () => {
		await server.stop();
		await slack.close();
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
		expect(jsonBody<{ text: string }>(post).text).toMatch(/^New mail for anyone@slack-domain\.test: \*Caught\*/);
	});
});
