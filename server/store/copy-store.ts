import { performance } from 'node:perf_hooks';
import { countLargeMessageBytes } from '../bytes/garbage';
import { reasonOf } from './postgres/database';
import { SqliteSource } from './copy/sqlite-source';
import { PostgresTarget, maxRowsPerStatement, type TargetWriter } from './copy/postgres-target';
import { TABLES, schemaMismatches, type TableCopy } from './copy/tables';
import { batches } from './copy/batches';
import { CopyStoreError } from './copy/copy-store-error';

export { CopyStoreError };

/** How far a step of the copy has come: a table copied, or the search index filled. */
export interface CopyProgress {
	/** The table written (messages_search: the search index, filled from the copied mail). */
	table: string;
	/** For the search index: which mail was indexed. */
	detail?: string;
	rows: number;
	/** How many rows the table has in the source (undefined for the search index). */
	total?: number;
	bytes: number;
	ms: number;
	done: boolean;
}

export interface CopySummary {
	/** The data folder, and host:port/database of the target. */
	from: string;
	to: string;
	steps: CopyProgress[];
	/** Rows copied from the source (the search index, derived, not counted), and the bytes of data they held. */
	rows: number;
	bytes: number;
	ms: number;
}

export interface CopyStoreOptions {
	fromDataDir: string;
	toDatabaseUrl: string;
	/** Hears of each step when it is done, and of a long one every `progressEvery` ms meanwhile. */
	onProgress?: (progress: CopyProgress) => void;
	progressEvery?: number;
}

/**
 * Copies the SQLite store of a data folder into an empty PostgreSQL database: every table, ids and sequence numbers kept,
 * the search index of private mail filled as the engine fills it. The source is read as one snapshot; the target is
 * written in one transaction, so it has the whole copy or (the copy refused or failed) nothing more than before.
 */
export async function copyStore(options: CopyStoreOptions): Promise<CopySummary> {
	const source = SqliteSource.open(options.fromDataDir);
	try {
		const target = await PostgresTarget.open(options.toDatabaseUrl);
		try {
			const started = performance.now();
			const steps = await target.transaction((writer) => new Copy(source, writer, target.where, options).run());
			const copied = steps.filter((step) => step.total !== undefined);
			return {
				from: source.dir,
				to: target.where,
				steps,
				rows: sum(copied.map((step) => step.rows)),
				bytes: sum(copied.map((step) => step.bytes)),
				ms: performance.now() - started,
			};
		} catch (err) {
			if (err instanceof CopyStoreError) throw err;
			throw new CopyStoreError(`the copy into ${target.where} failed and was undone (nothing of it is there): ${reasonOf(err)}`, {
				cause: err,
			});
		} finally {
			await target.close();
		}
	} finally {
		source.close();
	}
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

/** One copy, inside the target's transaction. */
class Copy {
	private readonly steps: CopyProgress[] = [];
	private readonly progressEvery: number;

	constructor(
		private readonly source: SqliteSource,
		private readonly writer: TargetWriter,
		private readonly where: string,
		private readonly options: CopyStoreOptions,
	) {
		this.progressEvery = options.progressEvery ?? 5000;
	}

	async run(): Promise<CopyProgress[]> {
		await this.checkSchemas();
		const held = await this.writer.lockAndListHeld(TABLES);
		if (held.length > 0) {
			throw new CopyStoreError(
				`the database ${this.where} is not empty (it has rows in ${held.join(', ')}): copy-store copies only into an empty database`,
			);
		}
		for (const table of TABLES) {
			// The search index is filled as the engine fills it when addresses are reserved and then their domains claimed.
			if (table.name === 'domains') await this.indexMail('mail of reserved addresses', () => this.writer.indexReservedAddresses());
			await this.copyTable(table);
		}
		await this.indexMail('mail of owned domains', () => this.writer.indexOwnedDomains());
		await this.writer.moveIdentities(TABLES);
		return this.steps;
	}

	/** Both databases must have exactly the tables and columns TABLES maps: nothing is left behind unnoticed. */
	private async checkSchemas(): Promise<void> {
		const mismatches = [...schemaMismatches(this.source.schema(), 'sqlite'), ...schemaMismatches(await this.writer.schema(), 'postgres')];
		if (mismatches.length > 0) {
			throw new CopyStoreError(`copy-store does not know every column of the schemas (${mismatches.join('; ')}): nothing was copied`);
		}
	}

	private async copyTable(table: TableCopy): Promise<void> {
		const total = this.source.count(table);
		const step: CopyProgress = { table: table.name, rows: 0, total, bytes: 0, ms: 0, done: false };
		const started = performance.now();
		let reported = started;
		for (const batch of batches(this.source.rows(table), maxRowsPerStatement(table))) {
			await this.writer.insert(table, batch.rows);
			// The batch's buffers are garbage now: collected every 8 MB, as the server does for large messages.
			countLargeMessageBytes(batch.bytes);
			step.rows += batch.rows.length;
			step.bytes += batch.bytes;
			const now = performance.now();
			if (now - reported >= this.progressEvery) {
				reported = now;
				this.options.onProgress?.({ ...step, ms: now - started });
			}
		}
		// The source is one snapshot: every row it counted was read.
		if (step.rows !== total) throw new Error(`${table.name}: read ${step.rows} rows of ${total}`);
		this.finish(step, started);
	}

	private async indexMail(detail: string, index: () => Promise<number>): Promise<void> {
		const started = performance.now();
		const rows = await index();
		this.finish({ table: 'messages_search', detail, rows, bytes: 0, ms: 0, done: false }, started);
	}

	private finish(step: CopyProgress, started: number): void {
		const done = { ...step, ms: performance.now() - started, done: true };
		this.steps.push(done);
		this.options.onProgress?.(done);
	}
}
