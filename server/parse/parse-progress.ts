/**
 * Which message of a task a parser thread is on, and since when, in one shared 64-bit slot
 * (written in one atomic store, so the two never disagree): the start time in ms, shifted left
 * by INDEX_BITS, plus the index. 0 means the thread has not begun the task.
 */
const INDEX_BITS = 20n;

/** Tasks hold fewer messages than this, so an index fits in its bits. */
export const MAX_TASK_MESSAGES = 2 ** Number(INDEX_BITS);

export function newProgress(): BigInt64Array {
	return new BigInt64Array(new SharedArrayBuffer(BigInt64Array.BYTES_PER_ELEMENT));
}

/** Called by the parser thread as it begins message `index`. */
export function markStarted(progress: BigInt64Array, index: number): void {
	Atomics.store(progress, 0, (BigInt(Date.now()) << INDEX_BITS) | BigInt(index));
}

export function readProgress(progress: BigInt64Array): { index: number; startedAt: number } | undefined {
	const value = Atomics.load(progress, 0);
	if (value === 0n) return undefined;
	return { index: Number(value & ((1n << INDEX_BITS) - 1n)), startedAt: Number(value >> INDEX_BITS) };
}
