import type { OwnPostgres } from './helpers/postgres';
import { RUN_POSTGRES } from './postgres-global-setup';

export default async function stopRunPostgres(): Promise<void> {
	await (globalThis as Record<symbol, OwnPostgres | undefined>)[RUN_POSTGRES]?.stop();
}
