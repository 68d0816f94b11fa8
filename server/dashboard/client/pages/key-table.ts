import type { ApiKeyView } from '../api.js';
import { formatTime, h, table, type Child } from '../dom.js';

/**
 * API keys as the Account and Admin pages list them; `revokeButton` for each active key but the session's own (the server
 * refuses to revoke the key of the request itself, so the dashboard never offers it).
 */
export function keyTable(caption: string, keys: ApiKeyView[], revokeButton: (key: ApiKeyView) => Child): HTMLTableElement {
	return table(
		caption,
		['Label', 'Key id', 'Created', 'State', 'Actions'],
		keys.map((key) => [
			key.label || '—',
			h('code', {}, key.id),
			formatTime(key.created),
			key.revoked ? `Revoked ${formatTime(key.revoked)}` : key.current ? 'Active (this session)' : 'Active',
			key.revoked || key.current ? '' : revokeButton(key),
		]),
	);
}
