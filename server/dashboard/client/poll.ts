/** How often a page that shows changing data reads it again. */
export const POLL_MS = 5000;

/** Calls `refresh` now and every POLL_MS while the tab is in front (no polling in the background); returns the stop. */
export function refreshEvery(refresh: () => Promise<void>): () => void {
	void refresh();
	const timer = setInterval(() => {
		if (!document.hidden) void refresh();
	}, POLL_MS);
	return () => clearInterval(timer);
}
