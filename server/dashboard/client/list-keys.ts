/** What the keys do beyond moving: `/` goes to the search box, Delete deletes the current row's message (by its index). */
export interface ListKeyActions {
	search: () => void;
	remove: (index: number) => void;
}

/** Keys typed into a field are the field's own. */
const typing = (target: EventTarget | null) =>
	target instanceof HTMLElement && target.closest('input, textarea, select, [contenteditable]') !== null;

/**
 * Mail-reader keys over the rows of the table in `container`: j and k move the current row (its link takes focus, so
 * Enter opens it), / focuses the search, Delete deletes. Returns a function that stops listening.
 */
export function listKeys(container: HTMLElement, actions: ListKeyActions): () => void {
	const onKey = (event: KeyboardEvent) => {
		if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
		const rows = [...container.querySelectorAll<HTMLTableRowElement>('tbody tr')];
		const current = rows.findIndex((row) => row.contains(document.activeElement));
		if (event.key === '/') {
			event.preventDefault();
			actions.search();
		} else if ((event.key === 'j' || event.key === 'k') && rows.length) {
			const next = current === -1 ? 0 : Math.min(rows.length - 1, Math.max(0, current + (event.key === 'j' ? 1 : -1)));
			rows[next].querySelector('a')?.focus();
		} else if (event.key === 'Delete' && current !== -1) {
			actions.remove(current);
		}
	};
	document.addEventListener('keydown', onKey);
	return () => document.removeEventListener('keydown', onKey);
}
