import { startBenchPostgres, type BenchPostgres } from './postgres';
import { treeCpuMsOf } from './proc-stats';
import { startMailroomProcess, type ServerProcess } from './processes';

/** The store's two engines: SQLite in the data folder, PostgreSQL through --database-url. */
export type Engine = 'sqlite' | 'postgres';

export const ENGINE_NAME: Record<Engine, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };

/** BENCH_ENGINES: the engines to measure, comma-separated (sqlite, postgres); default both. */
export function enginesFromEnv(): Engine[] {
	const names = (process.env.BENCH_ENGINES ?? 'sqlite,postgres').split(',').map((name) => name.trim().toLowerCase());
	const unknown = names.filter((name) => name !== 'sqlite' && name !== 'postgres');
	if (unknown.length || names.length === 0) throw new Error(`BENCH_ENGINES takes sqlite and postgres, not "${unknown.join(',')}"`);
	return [...new Set(names)] as Engine[];
}

/** Engines (or other setups) in the order of run `run`: reversed every other run, so that none always runs first on a machine that drifts. */
export const inRunOrder = <T>(items: T[], run: number): T[] => (run % 2 === 0 ? items : [...items].reverse());

export interface EngineServer extends ServerProcess {
	engine: Engine;
	/** Where the PostgreSQL store is (undefined on SQLite): another node starts on it. */
	databaseUrl?: string;
}

/**
 * Where a benchmark's servers keep their stores: SQLite in each server's data folder; PostgreSQL on one server that the
 * benchmark starts on first use (in BENCH_PG_DIR when set, kept for later runs) and stops at the end, a new database for
 * each Mailroom server unless one is named.
 */
export class BenchStores {
	private postgresServer?: Promise<BenchPostgres>;
	private started?: BenchPostgres;

	/** The PostgreSQL server, started on first use. */
	postgres(): Promise<BenchPostgres> {
		this.postgresServer ??= startBenchPostgres(process.env.BENCH_PG_DIR).then((server) => (this.started = server));
		return this.postgresServer;
	}

	/**
	 * Starts `mailroom serve` on a new store of `engine`, or on a kept one: SQLite in `dataDir`, PostgreSQL in the database
	 * named `database`. `args`: more settings.
	 */
	async startServer(engine: Engine, options: { dataDir?: string; database?: string; args?: string[] } = {}): Promise<EngineServer> {
		const { dataDir, database, args } = options;
		if (engine === 'sqlite') return { engine, ...(await startMailroomProcess({ dataDir, args })) };
		const postgres = await this.postgres();
		const databaseUrl = database ? await postgres.database(database) : await postgres.newDatabase();
		return { engine, databaseUrl, ...(await startMailroomProcess({ databaseUrl, newStore: !database, args })) };
	}

	/** Another node on the PostgreSQL store of `server`. */
	async startNode(server: EngineServer, args: string[] = []): Promise<EngineServer> {
		if (!server.databaseUrl) throw new Error('only servers on PostgreSQL have other nodes');
		return { ...server, ...(await startMailroomProcess({ databaseUrl: server.databaseUrl, newStore: false, args })) };
	}

	/** CPU time PostgreSQL's processes have used so far, in ms (0 when it was not started). */
	databaseCpuMs(): number {
		return this.started ? treeCpuMsOf(this.started.pid) : 0;
	}

	/** The PostgreSQL server's version and durability settings, if it was started. */
	async describe(): Promise<string | undefined> {
		return this.started?.describe();
	}

	async stop(): Promise<void> {
		await this.started?.stop();
	}
}
