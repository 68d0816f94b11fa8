/**
 * The codes of a write that failed for lack of space: the file system's (a full disk, a quota), SQLite's (its database or
 * write-ahead log could not grow) and PostgreSQL's (disk_full, 53100: the database server's disk).
 */
const OUT_OF_SPACE_CODES = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL', '53100']);

/** Whether `err` is a write that failed for lack of space. */
export function isOutOfSpace(err: unknown): boolean {
	const code = (err as { code?: unknown } | undefined)?.code;
	return typeof code === 'string' && OUT_OF_SPACE_CODES.has(code);
}
