// A second baseline, the "naive" server: parse each message with simpleParser, insert one row, then answer 250.
// WAL with synchronous=FULL, so each 250 follows its own commit and fsync, like Mailroom's (which shares one among many).
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { listenBaselineServer } from './support/baseline-server';

const dir = mkdtempSync(join(tmpdir(), 'mailroom-bench-naive-'));
const db = new Database(join(dir, 'naive.sqlite'));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.exec('CREATE TABLE messages (id INTEGER PRIMARY KEY, sender TEXT, subject TEXT, text TEXT, raw BLOB)');
const insert = db.prepare('INSERT INTO messages (sender, subject, text, raw) VALUES (?, ?, ?, ?)');

listenBaselineServer(
	Number(process.argv[2]),
	(stream, _session, callback) => {
		const chunks: Buffer[] = [];
		stream.on('data', (chunk: Buffer) => chunks.push(chunk));
		stream.on('end', () => {
			const raw = Buffer.concat(chunks);
			simpleParser(raw).then(
				(mail) => {
					insert.run(mail.from?.text ?? '', mail.subject ?? '', mail.text ?? '', raw);
					callback();
				},
				(err: Error) => callback(err),
			);
		});
	},
	() => {
		db.close();
		rmSync(dir, { recursive: true, force: true });
	},
);
