import { chaosActs, type ChaosSettings } from '../../schemas/chaos-settings';
import type { ChaosStore } from '../store';
import { nowIso } from '../ids';
import type { SqlDb } from './sql-db';

interface ChaosRow {
	account_id: string;
	settings_json: string;
	updated: string;
}

/**
 * Chaos settings per account: one row once an account sets them, `enabled` beside the JSON (on, with a stage set), so the
 * SMTP listener reads only the accounts whose chaos acts.
 */
export class SqlChaosStore implements ChaosStore {
	constructor(private readonly db: SqlDb) {}

	async get(accountId: string): Promise<{ settings: ChaosSettings; updated: string } | undefined> {
		const row = await this.db.row<ChaosRow>('SELECT settings_json, updated FROM account_chaos WHERE account_id = $1', [accountId]);
		return row && { settings: JSON.parse(row.settings_json) as ChaosSettings, updated: row.updated };
	}

	async set(accountId: string, settings: ChaosSettings): Promise<string> {
		const updated = nowIso();
		await this.db.run(
			`INSERT INTO account_chaos (account_id, enabled, settings_json, updated) VALUES ($1, $2, $3, $4)
			ON CONFLICT (account_id) DO UPDATE SET enabled = excluded.enabled, settings_json = excluded.settings_json, updated = excluded.updated`,
			[accountId, chaosActs(settings) ? 1 : 0, JSON.stringify(settings), updated],
		);
		return updated;
	}

	async enabled(): Promise<Map<string, ChaosSettings>> {
		const rows = await this.db.rows<ChaosRow>('SELECT account_id, settings_json FROM account_chaos WHERE enabled = 1');
		return new Map(rows.map((row) => [row.account_id, JSON.parse(row.settings_json) as ChaosSettings]));
	}
}
