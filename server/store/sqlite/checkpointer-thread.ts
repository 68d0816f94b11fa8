// Worker-thread entry: copies the WAL back into the database file on its own connection, so the fsyncs of a
// checkpoint do not stall a commit (and with it an SMTP reply), but for the brief RESTART below.
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';

const { path, intervalMs, restartAfterFrames } = workerData as { path: string; intervalMs: number; restartAfterFrames: number };
const db = new Database(path);
db.pragma('synchronous = NORMAL');
// Only a RESTART checkpoint waits, for the writer and for readers, and meanwhile holds writers back: never for long.
db.pragma('busy_timeout = 50');

const checkpoint = () => {
	try {
		// PASSIVE: copies what it can without waiting for (or blocking) readers and the writer.
		const [{ log }] = db.pragma('wal_checkpoint(PASSIVE)') as { log: number }[];
		// Writes go on from the WAL's start only after a checkpoint that left nothing behind, which PASSIVE never manages
		// while mail keeps coming: the WAL would grow for as long as it does. RESTART holds writers back while it copies what
		// was committed during the PASSIVE one (a few milliseconds' worth), and until readers are off the WAL.
		if (log >= restartAfterFrames) db.pragma('wal_checkpoint(RESTART)');
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
