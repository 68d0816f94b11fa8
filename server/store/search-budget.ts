/**
 * What bounds one search or filter: a time limit, and its caller still waiting. An engine does the work in pieces of a
 * few milliseconds and calls `between` after each, which lets the event loop (and the store's connection) serve others,
 * and ends the work once the limit has passed or the caller has gone.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

export interface SearchBudget {
	/** Epoch ms after which the search gives up with SearchTimeoutError. */
	deadline: number;
	/** How long that is from the start, in ms: what the error says. */
	limitMs: number;
	/** Aborted when the caller is gone (the HTTP client closed the connection): the search gives up with SearchAbandonedError. */
	signal?: AbortSignal;
	/** performance.now() when the search last let the event loop turn (or began): see `between`. */
	heldSince: number;
}

/** The search took longer than its limit (--search-timeout): the API answers 503 naming it. */
export class SearchTimeoutError extends Error {
	constructor(readonly limitMs: number) {
		super(`The search took longer than ${limitMs / 1000} s, the most one may take (--search-timeout)`);
	}
}

/** The caller went away before the search was done: nobody waits for an answer. */
export class SearchAbandonedError extends Error {
	constructor() {
		super('The search was abandoned: its client went away');
	}
}

/** A budget of `limitMs` from now. */
export const budgetOf = (limitMs: number, signal?: AbortSignal): SearchBudget => ({
	deadline: Date.now() + limitMs,
	limitMs,
	signal,
	heldSince: performance.now(),
});

/** The budget of a search nobody limits (a caller of the store other than the API): still done in pieces, never stopped. */
export const unbounded = (): SearchBudget => ({ deadline: Infinity, limitMs: Infinity, heldSince: performance.now() });

/** Throws when the budget says to stop: the caller gone, or the time spent. */
export function checkBudget(budget: SearchBudget): void {
	if (budget.signal?.aborted) throw new SearchAbandonedError();
	if (Date.now() > budget.deadline) throw new SearchTimeoutError(budget.limitMs);
}

/**
 * Between two pieces of a search's work: lets the event loop turn once the search has held it for PIECE_MS since it last
 * did (quick pieces follow one another without a turn, which would cost a common search more than its work), then checks
 * the budget.
 */
export async function between(budget: SearchBudget): Promise<void> {
	if (performance.now() - budget.heldSince >= PIECE_MS) {
		await nextTurn();
		budget.heldSince = performance.now();
	}
	checkBudget(budget);
}

/**
 * How much the next piece of work should cover, from how long the last took: pieces aim at about PIECE_MS / 2 of work, so
 * that one never holds the event loop for long, and there are not so many that the turns between them cost more than they.
 */
export const PIECE_MS = 10;

export function nextSpan(span: number, tookMs: number, bounds: { min: number; max: number }): number {
	// As many as fit in PIECE_MS / 2 at the last piece's rate, growing at most 8x (a fast piece says little of the next):
	// growing 8x whatever the rate, a piece of 1.2 ms was followed by one of 10 ms and more (50 ms for crafted bodies).
	const fitting = tookMs > 0 ? Math.floor((span * PIECE_MS) / 2 / tookMs) : Infinity;
	return Math.max(bounds.min, Math.min(bounds.max, span * 8, fitting));
}
