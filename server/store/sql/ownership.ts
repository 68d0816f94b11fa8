import type { SqlDb } from './sql-db';

/**
 * What an engine does, beside the rows, when whose mail an inbox is changes (an address reserved or released, a domain
 * claimed or given up). Called inside the transaction that makes the change.
 */
export interface Ownership {
	/** Holds these domains until the transaction ends, so that changes of one domain on several nodes take turns. */
	lock(tx: SqlDb, domains: string[]): Promise<void>;
	/** The search index follows: an address's mail became private, or public again; a domain's likewise. */
	reserved(tx: SqlDb, email: string): Promise<void>;
	released(tx: SqlDb, email: string): Promise<void>;
	claimed(tx: SqlDb, domain: string): Promise<void>;
	givenUp(tx: SqlDb, domain: string): Promise<void>;
}

const done = () => Promise.resolve();

/** SQLite: one server per database, whose write transactions hold the whole database; its triggers keep the index. */
export const NOTHING_MORE: Ownership = { lock: done, reserved: done, released: done, claimed: done, givenUp: done };

/** The domain of an address: what follows its last "@". */
export const domainOf = (email: string) => email.slice(email.lastIndexOf('@') + 1);
