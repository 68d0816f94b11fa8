import type { ChaosView } from '../schemas/chaos';
import { NO_CHAOS, chaosActs, type ChaosSettings } from '../schemas/chaos-settings';
import type { Logger } from '../log';
import type { Store } from '../store/store';

/**
 * The chaos settings of the accounts that have chaos on, held in memory for the SMTP listener, which looks at them for
 * every command: with no account's chaos on, that is a look at an empty map and no query. A change made through this
 * node applies at once; one made through another node of a PostgreSQL database as its announcement is heard (reload).
 */
export class ChaosBook {
	private enabled = new Map<string, ChaosSettings>();
	/** Counts the changes made here, so a reload that started before one does not put back what it replaced. */
	private changes = 0;

	constructor(
		private readonly store: Pick<Store, 'chaos' | 'transaction'>,
		private readonly log: Logger,
	) {}

	/** Whether any account has chaos on. */
	get any(): boolean {
		return this.enabled.size > 0;
	}

	/** The settings of an account whose chaos is on; undefined when it is off. */
	of(accountId: string): ChaosSettings | undefined {
		return this.enabled.get(accountId);
	}

	/** Reads again which accounts have chaos on (at the start, and when another node changed some). */
	async reload(): Promise<void> {
		for (;;) {
			const changes = this.changes;
			const enabled = await this.store.chaos.enabled();
			if (changes !== this.changes) continue;
			this.enabled = enabled;
			return;
		}
	}

	/** Reloads, logging rather than failing when the store cannot answer (the settings held stay until the next reload). */
	reloadInBackground(): void {
		this.reload().catch((err: Error) => this.log.warn({ err: err.message }, 'chaos settings could not be read again'));
	}

	/** An account's settings as the API shows them. */
	async read(accountId: string): Promise<ChaosView> {
		const stored = await this.store.chaos.get(accountId);
		return { ...(stored?.settings ?? NO_CHAOS), updated: stored?.updated ?? null };
	}

	/** An account's settings alone (everything off when it never set any). */
	async settings(accountId: string): Promise<ChaosSettings> {
		return (await this.store.chaos.get(accountId))?.settings ?? NO_CHAOS;
	}

	/** Replaces an account's settings: in force on this node at once, and the other nodes told in the same transaction. */
	async write(accountId: string, settings: ChaosSettings): Promise<ChaosView> {
		const updated = await this.store.transaction(async (parts) => {
			const time = await parts.chaos.set(accountId, settings);
			await parts.announce({ messages: [], webhooks: false, forwards: false, chaos: true });
			return time;
		});
		this.changes++;
		if (chaosActs(settings)) this.enabled.set(accountId, settings);
		else this.enabled.delete(accountId);
		return { ...settings, updated };
	}
}
