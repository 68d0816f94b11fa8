/**
 * Bytes of rows held for one statement. Rows are small but for the pieces of large messages (1 MB each) and the bodies
 * and attachments of smaller ones: those go a few at a time, so memory holds a few megabytes of the store at once.
 */
export const BATCH_BYTES = 4 * 1024 * 1024;

/** Rows to write in one statement, and about how many bytes of data they hold. */
export interface Batch {
	rows: unknown[][];
	bytes: number;
}

/** About how many bytes a column's value takes (the size of the data, not of its encoding on the wire). */
function sizeOf(value: unknown): number {
	if (Buffer.isBuffer(value)) return value.length;
	if (typeof value === 'string') return Buffer.byteLength(value);
	return value === null ? 0 : 8;
}

/**
 * Groups rows for writing: at most `maxRows` a batch, and no more once `maxBytes` are reached. Rows are read from
 * `rows` as the batches are taken, so only the batch being written is in memory.
 */
export function* batches(rows: Iterable<unknown[]>, maxRows: number, maxBytes = BATCH_BYTES): Generator<Batch> {
	let batch: Batch = { rows: [], bytes: 0 };
	for (const row of rows) {
		batch.rows.push(row);
		batch.bytes += row.reduce<number>((sum, value) => sum + sizeOf(value), 0);
		if (batch.rows.length >= maxRows || batch.bytes >= maxBytes) {
			yield batch;
			batch = { rows: [], bytes: 0 };
		}
	}
	if (batch.rows.length > 0) yield batch;
}
