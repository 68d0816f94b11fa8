import { rmSync } from 'node:fs';
import type { OwnPostgres } from './helpers/postgres';
import { RUN_POSTGRES, RUN_SQLITE_TEMPLATE } from './postgres-global-setup';

export default async function stopRunPostgres(): Promise<void> {
	await (globalThis as Record<symbol, OwnPostgres | undefined>)[RUN_POSTGRES]?.stop();
	const template = (globalThis as Record<symbol, string | undefined>)[RUN_SQLITE_TEMPLATE];
	if (template) rmSync(template, { recursive: true, force: true });
}
