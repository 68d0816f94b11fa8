/**
 * The public addresses a user watches on the Mail page. It is the user's view, not server state, so it is kept in this
 * browser's localStorage, one list per account (by the account's id, never the key).
 */

/** At most this many: each is one more request per page and one more name in the websocket's URL. */
export const MAX_WATCHED = 20;

const storageKey = (accountId: string) => `mailroom.watchList.${accountId}`;

/** The account's watched addresses, as stored (anything unreadable counts as none). */
export function readWatchList(accountId: string): string[] {
	try {
		const stored: unknown = JSON.parse(localStorage.getItem(storageKey(accountId)) ?? '[]');
		return Array.isArray(stored) ? stored.filter((entry): entry is string => typeof entry === 'string') : [];
	} catch {
		return [];
	}
}

export function saveWatchList(accountId: string, addresses: string[]): void {
	if (addresses.length) localStorage.setItem(storageKey(accountId), JSON.stringify(addresses));
	else localStorage.removeItem(storageKey(accountId));
}

/**
 * A first look at a typed address: why it cannot be watched, or undefined. The server has the last word (it refuses an
 * invalid address with 400 and another account's private one with 403), asked when the address is added.
 */
export function watchProblem(address: string, watched: string[], own: string[], domains: string[]): string | undefined {
	if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(address)) return `${address || 'That'} is not an email address, such as news@example.com.`;
	// The account's own mail is listed already; watching it too would list it twice.
	if (own.includes(address) || domains.includes(address.slice(address.lastIndexOf('@') + 1)))
		return `${address} is one of your addresses: its mail is already listed.`;
	if (watched.includes(address)) return `${address} is already on the watch list.`;
	if (watched.length >= MAX_WATCHED) return `The watch list holds at most ${MAX_WATCHED} addresses: remove one first.`;
	return undefined;
}
