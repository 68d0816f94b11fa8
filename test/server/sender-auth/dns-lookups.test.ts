import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { DnsLookups } from 'mailroom-server/dist/sender-auth/dns-lookups';
import { startDnsServer, type TestDnsServer } from '../../helpers/dns-server';

/** The lookups of sender verification against a real DNS server on 127.0.0.1: what is asked of it, and when. */
describe('DNS lookups of sender verification', () => {
	let dns: TestDnsServer;

	beforeAll(async () => {
		dns = await startDnsServer({ txt: { 'a.test': ['v=spf1 -all'], 'b.test': ['one'], 'c.test': ['two'] } });
		dns.silent.add('never.test');
	});
	afterAll(() => dns.close());

	const lookups = (cache?: ConstructorParameters<typeof DnsLookups>[0]['cache']) =>
		new DnsLookups({ servers: [dns.address], timeoutMs: 600, cache });
	const asked = (name: string) => dns.queries.filter((query) => query === `TXT ${name}`).length;
	const inAMinute = () => Date.now() + 60_000;

	it('asks once for what many messages look up at once, and answers the next from the cache', async () => {
		const resolve = lookups().within(inAMinute());
		const before = asked('a.test');
		const answers = await Promise.all([resolve('a.test', 'TXT'), resolve('A.test', 'TXT'), resolve('a.test', 'TXT')]);
		expect(answers).toEqual([[['v=spf1 -all']], [['v=spf1 -all']], [['v=spf1 -all']]]);
		await resolve('a.test', 'TXT');
		expect(asked('a.test') - before).toBe(1);
	});

	it('keeps answers and "no such name" for their time, then asks again', async () => {
		const resolve = lookups({ answerMs: 150, negativeMs: 150 }).within(inAMinute());
		const [answersBefore, missingBefore] = [asked('b.test'), asked('missing.test')];
		await resolve('b.test', 'TXT');
		await expect(resolve('missing.test', 'TXT')).rejects.toMatchObject({ code: 'ENOTFOUND' });
		await resolve('b.test', 'TXT');
		await expect(resolve('missing.test', 'TXT')).rejects.toMatchObject({ code: 'ENOTFOUND' });
		expect([asked('b.test') - answersBefore, asked('missing.test') - missingBefore]).toEqual([1, 1]);
		await sleep(200);
		await resolve('b.test', 'TXT');
		await expect(resolve('missing.test', 'TXT')).rejects.toMatchObject({ code: 'ENOTFOUND' });
		expect([asked('b.test') - answersBefore, asked('missing.test') - missingBefore]).toEqual([2, 2]);
	});

	it('keeps at most as many names as it is allowed, the oldest leaving first', async () => {
		const resolve = lookups({ maxEntries: 2 }).within(inAMinute());
		const before = asked('a.test');
		await resolve('a.test', 'TXT');
		await resolve('b.test', 'TXT');
		await resolve('a.test', 'TXT');
		expect(asked('a.test') - before).toBe(1);
		await resolve('c.test', 'TXT');
		await resolve('a.test', 'TXT');
		expect(asked('a.test') - before).toBe(2);
	});

	it('ends a lookup at the deadline (ETIMEOUT, which mailauth reads as temperror); past it, cached answers still come', async () => {
		const dnsLookups = lookups();
		await dnsLookups.within(inAMinute())('c.test', 'TXT');
		const started = Date.now();
		const resolve = dnsLookups.within(started + 200);
		await expect(resolve('never.test', 'TXT')).rejects.toMatchObject({ code: 'ETIMEOUT' });
		expect(Date.now() - started).toBeLessThan(500);
		await expect(resolve('c.test', 'TXT')).resolves.toEqual([['two']]);
		await expect(resolve('b.test', 'TXT')).rejects.toMatchObject({ code: 'ETIMEOUT' });
	});
});
