import { describe, expect, it } from '@jest/globals';
import { Parts, startParts } from 'mailroom-server/dist/lifecycle';
import type { Logger } from 'mailroom-server/dist/log';

/** A logger that keeps the messages of its error lines (the only level Parts writes). */
function errorLog() {
	const errors: string[] = [];
	return { errors, log: { error: (_fields: unknown, message: string) => errors.push(message) } as unknown as Logger };
}

/** A part that writes its name to `events` as it starts and as it closes (after a turn, as real closes take time). */
function recorded(events: string[], name: string, closing: () => Promise<void> = () => Promise.resolve()) {
	return () => {
		events.push(`start ${name}`);
		return {
			close: async () => {
				await new Promise((resolve) => setImmediate(resolve));
				events.push(`close ${name}`);
				await closing();
			},
		};
	};
}

describe('Parts', () => {
	it('closes the parts in reverse order of their start, each after the one started after it has closed, once', async () => {
		const events: string[] = [];
		const parts = new Parts(errorLog().log);
		for (const name of ['store', 'ingest', 'smtp']) await parts.start(name, recorded(events, name));
		expect(parts.close()).toBe(parts.close());
		await parts.close();
		expect(events).toEqual(['start store', 'start ingest', 'start smtp', 'close smtp', 'close ingest', 'close store']);
	});

	it('closes every part when some closes fail, logs each failure and rejects with the first', async () => {
		const events: string[] = [];
		const { errors, log } = errorLog();
		const parts = new Parts(log);
		await parts.start('store', recorded(events, 'store'));
		await parts.start(
			'ingest',
			recorded(events, 'ingest', () => Promise.reject(new Error('ingest stuck'))),
		);
		await parts.start(
			'smtp',
			recorded(events, 'smtp', () => Promise.reject(new Error('smtp stuck'))),
		);
		await expect(parts.close()).rejects.toThrow('smtp stuck');
		expect(events.filter((event) => event.startsWith('close'))).toEqual(['close smtp', 'close ingest', 'close store']);
		expect(errors).toEqual(['smtp: the close failed', 'ingest: the close failed']);
	});
});

describe('startParts', () => {
	it('closes the parts started before a start fails, and passes on that failure (not a close failure)', async () => {
		const events: string[] = [];
		const start = startParts(errorLog().log, async (parts) => {
			await parts.start('store', recorded(events, 'store'));
			await parts.start(
				'ingest',
				recorded(events, 'ingest', () => Promise.reject(new Error('ingest stuck'))),
			);
			await parts.start('smtp', () => Promise.reject(new Error('listen EADDRINUSE')));
			await parts.start('http', recorded(events, 'http'));
		});
		await expect(start).rejects.toThrow('listen EADDRINUSE');
		expect(events).toEqual(['start store', 'start ingest', 'close ingest', 'close store']);
	});

	it('gives what its start built, the parts still open', async () => {
		const events: string[] = [];
		const built = await startParts(errorLog().log, async (parts) => {
			await parts.start('store', recorded(events, 'store'));
			return { close: () => parts.close() };
		});
		expect(events).toEqual(['start store']);
		await built.close();
		expect(events).toEqual(['start store', 'close store']);
	});
});
