import type { Ownership } from '../sql/ownership';
import { lockDomains } from './locks';
import { SearchIndex } from './search-index';

/**
 * Several nodes: a change of whose mail an inbox is holds its domain's lock (see LockKind.domain), so a claim of the
 * domain, or mail being stored in it, waits for it; and the search index, which holds exactly the private mail, follows.
 */
export const POSTGRES_OWNERSHIP: Ownership = {
	lock: (tx, domains) => lockDomains(tx, domains),
	reserved: (tx, email) => new SearchIndex(tx).reserved(email),
	released: (tx, email) => new SearchIndex(tx).released(email),
	claimed: (tx, domain) => new SearchIndex(tx).claimed(domain),
	givenUp: (tx, domain) => new SearchIndex(tx).givenUp(domain),
};
