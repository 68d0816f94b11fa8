import { describe, expect, it } from '@jest/globals';
import { sendMail } from '../../helpers/messages';
import { firstPost, jsonBody, webhookSetup } from '../../helpers/webhooks';
import { reserveForwarding } from '../../helpers/addresses';

describe('webhookSlack: the Slack summary', () => {
	const setup = webhookSetup('ann');

	it('posts a short summary as {"text"}, without From and To unless asked for', async () => {
		const { server, receiver: slack, account: ann } = setup;
		await reserveForwarding(server, ann.key, 'slack@example.test', { webhookSlack: `${slack.url}/plain` });
		await sendMail(server, {
			to: 'slack@example.test',
			from: 'Ann <ann@sender.test>',
			subject: 'Build <failed> & more',
			text: 'Line one\n\nline two',
		});
		const post = await firstPost(slack, '/plain');
		expect(post.method).toBe('POST');
		expect(post.headers['content-type']).toMatch(/^application\/json/);
		expect(jsonBody<{ text: string }>(post)).toEqual({
			text: 'New mail for slack@example.test: *Build &lt;failed&gt; &amp; more*\n> Line one line two',
		});
	});

	it('adds From and To with webhookSlackToFrom, and shortens a long text', async () => {
		const { server, receiver: slack, account: ann } = setup;
		await reserveForwarding(server, ann.key, 'slack-tf@example.test', { webhookSlack: `${slack.url}/to-from`, webhookSlackToFrom: true });
		await sendMail(server, { to: 'slack-tf@example.test', from: 'Ann <ann@sender.test>', subject: 'Hello', text: 'x'.repeat(500) });
		const post = await firstPost(slack, '/to-from');
		const lines = jsonBody<{ text: string }>(post).text.split('\n');
		expect(lines.slice(0, 3)).toEqual([
			'New mail for slack-tf@example.test: *Hello*',
			'From: Ann &lt;ann@sender.test&gt;',
			'To: slack-tf@example.test',
		]);
		expect(lines[3]).toBe(`> ${'x'.repeat(300)}…`);
	});
});
