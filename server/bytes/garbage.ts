import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// The usual way to reach V8's gc() without starting node with --expose-gc: a context made while the flag is on gets it.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
setFlagsFromString('--no-expose-gc');

/**
 * A large message streams through memory in many short-lived buffers (socket reads, file reads,
 * decoded pieces). V8 frees a buffer only when it collects garbage, and buffers alone make it do
 * so only once some 64 MB more of them exist than after its last collection; measured, that was
 * most of what one 25 MB message added to the server's memory. So code streaming a large message
 * counts the bytes it passes on and collects every 8 MB of them (a full collection: some of the
 * buffers live long enough to leave the young generation). The count is per thread, not per
 * message, so several large messages at once do not multiply the collections (each pauses the
 * thread for about 10-20 ms).
 */
const COLLECT_EVERY_BYTES = 8 * 1024 * 1024;
let since = 0;

/** Counts bytes of a large message this thread has passed on, and collects garbage every COLLECT_EVERY_BYTES. */
export function countLargeMessageBytes(bytes: number): void {
	since += bytes;
	if (since < COLLECT_EVERY_BYTES) return;
	collectGarbage();
}

/** Collects garbage now: a large message's copy just let go of (a request body once parsed), before the next is made. */
export function collectGarbage(): void {
	since = 0;
	gc();
}
