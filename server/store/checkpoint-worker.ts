// Worker-thread entry: copies the WAL back into the database file on its own connection, so the
// fsyncs of a checkpoint never stall a commit (and with it an SMTP reply) on the main thread.
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';

const { path, intervalMs } = workerData as { path: string; intervalMs: number };
const db = new Database(path);
db.pragma('synchronous = NORMAL');
db.pragma('busy_timeout = 5000');

const checkpoint = () => {
	try {
		// PASSIVE: copies what it can without waiting for (or blocking) readers and the writer.
		db.pragma('wal_checkpoint(PASSIVE)');
	} catch {
		// Busy or locked: the next round catches up.
	}
};
const timer = setInterval(checkpoint, intervalMs);

parentPort!.on('message', () => {
	clearInterval(timer);
	checkpoint();
	db.close();
	parentPort!.close();
});
