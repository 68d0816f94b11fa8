import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MailWaiters, type WaitRequest } from 'mailroom-server/dist/waiting/mail-waiters';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { sendMail } from '../../helpers/messages';

/**
 * The registry itself, beside the server's own on the same ingest and store (the HTTP side is in
 * test/server/http/routes/wait-for.test.ts): limits small enough to reach, and how waits end.
 */
describe('MailWaiters', () => {
	let server: TestMailroom;
	beforeAll(async () => {
		server = await startTestMailroom();
	});
	afterAll(() => server.stop());

	const waitersWith = (limits = { total: 3, perCaller: 2 }) => new MailWaiters(server.ingest, server.store.matcher, limits);
	const request = (caller: string, inbox = 'registry@example.test'): WaitRequest => ({
		inbox,
		since: Date.now(),
		filter: {},
		timeout: 300_000,
		caller,
	});

	it('refuses a caller past its limit and anyone past the total; places come free as waits end', async () => {
		const waiters = waitersWith({ total: 3, perCaller: 2 });
		const leave = new AbortController();
		const waits = [waiters.wait(request('a'), leave.signal), waiters.wait(request('a'), leave.signal)];
		expect(await waiters.wait(request('a'), leave.signal)).toEqual({ kind: 'full', of: 'caller', limit: 2 });
		waits.push(waiters.wait(request('b'), leave.signal));
		expect(await waiters.wait(request('c'), leave.signal)).toEqual({ kind: 'full', of: 'server', limit: 3 });
		expect(waiters.size).toBe(3);
		leave.abort();
		expect(await Promise.all(waits)).toEqual([{ kind: 'gone' }, { kind: 'gone' }, { kind: 'gone' }]);
		expect(waiters.size).toBe(0);
		expect(await waiters.wait({ ...request('a'), timeout: 0 }, new AbortController().signal)).toEqual({ kind: 'timeout' });
		waiters.close();
	});

	it('wakes the waiters of the inbox mail is stored in; the others wait on', async () => {
		const waiters = waitersWith();
		const stay = new AbortController().signal;
		const here = waiters.wait(request('a', 'here@example.test'), stay);
		const elsewhere = waiters.wait(request('a', 'elsewhere@example.test'), stay);
		const [id] = await sendMail(server, { to: 'here@example.test' });
		expect(await here).toMatchObject({ kind: 'found', message: { _id: id, inbox: 'here@example.test' } });
		expect(waiters.size).toBe(1);
		waiters.close();
		expect(await elsewhere).toEqual({ kind: 'closing' });
	});

	it('takes no place for a client gone before its wait begins', async () => {
		const waiters = waitersWith();
		const gone = new AbortController();
		gone.abort();
		expect(await waiters.wait(request('a'), gone.signal)).toEqual({ kind: 'gone' });
		expect(waiters.size).toBe(0);
		waiters.close();
	});

	it('once closed, refuses new waits and stops listening to stored mail', async () => {
		const listening = server.ingest.listenerCount('stored');
		const waiters = waitersWith();
		expect(server.ingest.listenerCount('stored')).toBe(listening + 1);
		waiters.close();
		expect(server.ingest.listenerCount('stored')).toBe(listening);
		expect(await waiters.wait(request('a'), new AbortController().signal)).toEqual({ kind: 'closing' });
	});
});
