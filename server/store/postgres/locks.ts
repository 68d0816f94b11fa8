import { prepared, type Db, type PoolDb } from './database';

/**
 * Mailroom's advisory locks take two keys: what kind of thing is locked, then hashtext() of its name. The kinds' high half
 * spells "MR", so they never meet the locks of another application sharing the database.
 */
export const LockKind = {
	migrations: 0x4d520001,
	task: 0x4d520002,
	/** Held while a transaction stores mail in an inbox: `received` is then strictly increasing per inbox on every node. */
	inbox: 0x4d520003,
	/**
	 * Shared while a transaction stores mail in a domain, exclusive while one makes an inbox of it private or public again
	 * (reserving, releasing, claiming, giving up, a catch-all): the search index then holds exactly the private mail.
	 */
	domain: 0x4d520004,
} as const;

/**
 * The same names in the same order on every node (JavaScript's sort, not the database's collation), so that no two
 * transactions wait for each other's locks in a circle.
 */
const inOrder = (names: string[]) => [...new Set(names)].sort();

/** Locks `domains` exclusively until the transaction ends. */
export async function lockDomains(tx: Db, domains: string[]): Promise<void> {
	await tx.run(`SELECT pg_advisory_xact_lock(${LockKind.domain}, hashtext(name)) FROM unnest($1::text[]) AS name`, [inOrder(domains)]);
}

const LOCK_FOR_STORING = prepared(
	'lock-for-storing',
	`SELECT (SELECT count(pg_advisory_xact_lock_shared(${LockKind.domain}, hashtext(name))) FROM unnest($1::text[]) AS name),
		(SELECT count(pg_advisory_xact_lock(${LockKind.inbox}, hashtext(name))) FROM unnest($2::text[]) AS name)`,
);

const TRY_LOCK_FOR_STORING = prepared(
	'try-lock-for-storing',
	`SELECT bool_and(taken) AS taken FROM (
		SELECT pg_try_advisory_xact_lock_shared(${LockKind.domain}, hashtext(name)) AS taken FROM unnest($1::text[]) AS name
		UNION ALL SELECT pg_try_advisory_xact_lock(${LockKind.inbox}, hashtext(name)) FROM unnest($2::text[]) AS name) locks`,
);

/** Transactions that hold the locks of mail they stored already (a group commit stores many messages in one). */
const holdingStoringLocks = new WeakSet<Db>();

/** A transaction that holds locks for earlier mail found another's lock in its way: waiting could deadlock. */
export class StoringLockBusyError extends Error {
	constructor() {
		super('an inbox is being stored in by another transaction; the writes of this group commit are retried one by one');
	}
}

/**
 * Locks the inboxes mail is being stored in (exclusively) and their domains (shared), until the transaction ends. The
 * statement after this one sees what the transactions that held them committed.
 *
 * The first message of a transaction waits for them. A later one (of the same group commit) only takes them if they are
 * free: its transaction holds the locks of the messages before it, which another node's group commit may be waiting for
 * while it holds these, and waiting would deadlock (PostgreSQL would break the circle only after deadlock_timeout, a
 * second). StoringLockBusyError fails the batch at once instead, and the group commit stores its writes one by one.
 */
export async function lockForStoring(tx: Db, inboxes: string[], domains: string[]): Promise<void> {
	const names = [inOrder(domains), inOrder(inboxes)];
	if (!holdingStoringLocks.has(tx)) {
		await tx.run(LOCK_FOR_STORING, names);
		holdingStoringLocks.add(tx);
	} else if (!(await tx.row<{ taken: boolean }>(TRY_LOCK_FOR_STORING, names))!.taken) {
		throw new StoringLockBusyError();
	}
}

/**
 * Runs `task` while holding the lock of its name, on a connection kept for it; undefined when another session holds it.
 * Should that connection break, PostgreSQL releases the lock and another node may start the task while this one ends it.
 */
export function runExclusive<T>(pool: PoolDb, name: string, task: () => Promise<T>): Promise<T | undefined> {
	return pool.session(async (session) => {
		const lock = [LockKind.task, name];
		const taken = await session.row<{ taken: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS taken', lock);
		if (!taken?.taken) return undefined;
		try {
			return await task();
		} finally {
			await session.run('SELECT pg_advisory_unlock($1, hashtext($2))', lock);
		}
	});
}
