import type { Suppression } from '../../schemas/delivery-event';
import type { SuppressionStore } from '../store';
import type { SqlDb } from './sql-db';

interface SuppressionRow {
	account_id: string;
	address: string;
	reason: Suppression['reason'];
	outgoing_id: string;
	status_code: string | null;
	diagnostic: string | null;
	bounce_message_id: string | null;
	created: string;
}

const toSuppression = (row: SuppressionRow): Suppression => ({
	address: row.address,
	reason: row.reason,
	sentMessageId: row.outgoing_id,
	statusCode: row.status_code,
	diagnostic: row.diagnostic,
	bounceMessageId: row.bounce_message_id,
	created: row.created,
});

/** The addresses each account no longer sends to (addresses are kept lower-case). */
export class SqlSuppressionStore implements SuppressionStore {
	constructor(private readonly db: SqlDb) {}

	async list(accountId: string): Promise<Suppression[]> {
		const rows = await this.db.rows<SuppressionRow>('SELECT * FROM suppressions WHERE account_id = $1 ORDER BY created DESC, address', [
			accountId,
		]);
		return rows.map(toSuppression);
	}

	async find(accountId: string, addresses: string[]): Promise<Suppression[]> {
		if (addresses.length === 0) return [];
		const { dialect } = this.db;
		const rows = await this.db.rows<SuppressionRow>(
			`SELECT * FROM suppressions WHERE account_id = $1 AND ${dialect.inList('address', '$2')} ORDER BY address`,
			[accountId, dialect.list(addresses.map((address) => address.toLowerCase()))],
		);
		return rows.map(toSuppression);
	}

	async remove(accountId: string, address: string): Promise<Suppression | undefined> {
		const row = await this.db.row<SuppressionRow>('DELETE FROM suppressions WHERE account_id = $1 AND address = $2 RETURNING *', [
			accountId,
			address.toLowerCase(),
		]);
		return row && toSuppression(row);
	}
}

/** Puts a recipient on the account's suppression list, or renews its entry with the latest report. */
export async function suppress(tx: SqlDb, row: SuppressionRow): Promise<void> {
	await tx.run(
		`INSERT INTO suppressions (account_id, address, reason, outgoing_id, status_code, diagnostic, bounce_message_id, created)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (account_id, address) DO UPDATE SET reason = excluded.reason,
			outgoing_id = excluded.outgoing_id, status_code = excluded.status_code, diagnostic = excluded.diagnostic,
			bounce_message_id = excluded.bounce_message_id, created = excluded.created`,
		// prettier-ignore
		[
			row.account_id, row.address.toLowerCase(), row.reason, row.outgoing_id, row.status_code, row.diagnostic, row.bounce_message_id,
			row.created,
		],
	);
}
