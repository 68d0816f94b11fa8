import { getJson, type AdminAccount } from '../api.js';

/** The server's accounts, loaded once for the page and again after a change; each section redraws what it shows of them. */
export class AccountList {
	accounts: AdminAccount[] = [];
	private readonly listeners: (() => void)[] = [];

	onChange(listener: () => void): void {
		this.listeners.push(listener);
	}

	async reload(): Promise<void> {
		this.accounts = await getJson<AdminAccount[]>('/api/admin/accounts');
		for (const listener of this.listeners) listener();
	}

	nameOf(id: string): string {
		return this.accounts.find((account) => account._id === id)?.name ?? id;
	}
}
