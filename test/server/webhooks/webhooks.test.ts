import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { sameStore, startTestMailroom, tempDataDir } from '../../helpers/mailroom';
import { waitFor, WebhookReceiver } from '../../helpers/webhook-receiver';
import { activity, waitForStatus, webhookStatus } from '../../helpers/webhooks';
import { sendMail } from '../../helpers/messages';
import { reserveForwarding } from '../../helpers/addresses';
import { query } from '../../helpers/database';

describe('webhooks across restarts', () => {
	let receiver: WebhookReceiver;
	beforeEach(async () => {
		receiver = new WebhookReceiver();
		await receiver.listen();
	});
	afterEach(() => receiver.close());

	it('picks pending deliveries up again after a restart, and records exactly one success', async () => {
		const dataDir = tempDataDir();
		const schedule = { webhookRetrySchedule: [0, 1500, 1500] };
		receiver.reply = (_request, index) => ({ status: index === 0 ? 503 : 200 });
		const first = await startTestMailroom({ ...schedule, dataDir });
		const erin = await first.createAccount('erin');
		await reserveForwarding(first, erin.key, 'restart@hooks.test', { webhook: receiver.url });
		const [messageId] = await sendMail(first, { to: 'restart@hooks.test' });
		await waitFor(async () => (await activity(first, erin.key)).length === 1, 'the first (failed) attempt');
		await first.stop({ removeData: false });
		expect(receiver.requests).toHaveLength(1);

		const second = await startTestMailroom({ ...schedule, ...sameStore(first) });
		try {
			const delivered = await waitForStatus(second, erin.key, 'restart@hooks.test', messageId, 'delivered');
			expect(delivered.attempts).toBe(2);
			await new Promise((resolve) => setTimeout(resolve, 1000)); // room for a duplicate, if there were one
			expect(receiver.requests.map((request) => request.status)).toEqual([503, 200]);
			expect(new Set(receiver.requests.map((request) => request.headers['webhook-id'])).size).toBe(1);
			expect((await activity(second, erin.key, '?status=delivered')).length).toBe(1);
		} finally {
			await second.stop();
		}
	});
});

describe('Recent Activity retention', () => {
	it('prunes attempts and finished deliveries older than webhookActivityDays when the sweep runs', async () => {
		const dataDir = tempDataDir();
		const receiver = new WebhookReceiver();
		await receiver.listen();
		const first = await startTestMailroom({ dataDir, webhookActivityDays: 2 });
		const owner = await first.createAccount('retention');
		await reserveForwarding(first, owner.key, 'old@hooks.test', { webhook: receiver.url });
		const [oldId] = await sendMail(first, { to: 'old@hooks.test', subject: 'old' });
		await waitForStatus(first, owner.key, 'old@hooks.test', oldId, 'delivered');
		const [newId] = await sendMail(first, { to: 'old@hooks.test', subject: 'new' });
		await waitForStatus(first, owner.key, 'old@hooks.test', newId, 'delivered');
		const threeDaysAgo = Date.now() - 3 * 24 * 3600 * 1000;
		await query(first, 'UPDATE webhook_attempts SET time = ? WHERE message_id = ?', [threeDaysAgo, oldId]);
		await query(first, 'UPDATE webhook_deliveries SET updated = ? WHERE message_id = ?', [threeDaysAgo, oldId]);
		await first.stop({ removeData: false });

		const second = await startTestMailroom({ ...sameStore(first), webhookActivityDays: 2 });
		try {
			// The sweep also runs at start, beside the serving of requests (on PostgreSQL under a lock, so not done at once).
			await waitFor(async () => (await activity(second, owner.key)).length === 1, 'the sweep at start');
			expect((await activity(second, owner.key)).map((entry) => entry.messageId)).toEqual([newId]);
			expect((await webhookStatus(second, owner.key, 'old@hooks.test', oldId)).status).toBe(404);
			expect((await webhookStatus(second, owner.key, 'old@hooks.test', newId)).status).toBe(200);
		} finally {
			await second.stop();
			await receiver.close();
		}
	});
});
