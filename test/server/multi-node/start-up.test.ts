import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { query } from '../../helpers/database';
import { dataDirs } from '../../helpers/mailroom';
import { asFlags, freeWhere, runCli, whereSettings } from '../../helpers/mailroom-cli';
import { accepts, freePort } from '../../helpers/ports';
import { startPostgres, TEST_PASSWORD, urlFor, type TestPostgres } from '../../helpers/postgres';

/**
 * `mailroom serve --database-url` to a database it cannot use stops at once: a non-zero exit, one line saying what is
 * wrong and where (never the password), and nothing ever listening on its ports.
 */

const newDataDir = dataDirs();
const WRONG_PASSWORD = 'not-the-password-4242';

let postgres: TestPostgres;
beforeAll(async () => {
	postgres = await startPostgres();
});
afterAll(() => postgres?.stop());

/** Where the run's PostgreSQL listens, as error messages name it. */
const serverOf = (url: string) => `127.0.0.1:${new URL(url).port}`;

/** A database the schema of a newer Mailroom is in: migrated by this one, then one version further. */
async function newerDatabase(): Promise<string> {
	const url = await postgres.newDatabase();
	expect((await runCli(['accounts', 'list', '--database-url', url])).code).toBe(0);
	await query({ config: { dataDir: '', databaseUrl: url } }, 'UPDATE schema_version SET version = version + 1');
	return url;
}

const CASES: [string, () => Promise<string>, (url: string) => RegExp][] = [
	[
		'an unreachable server',
		async () => urlFor(postgres.adminUrl, { port: await freePort(), database: 'mailroom' }),
		(url) => new RegExp(`^mailroom: cannot reach PostgreSQL at ${serverOf(url)}: .*ECONNREFUSED`),
	],
	[
		'a wrong password',
		async () => urlFor(await postgres.newDatabase(), { password: WRONG_PASSWORD }),
		(url) => new RegExp(`^mailroom: PostgreSQL at ${serverOf(url)} refused the password of user "postgres"\n$`),
	],
	[
		'a missing database',
		() => Promise.resolve(urlFor(postgres.adminUrl, { database: 'no_such_mailroom_db' })),
		(url) => new RegExp(`^mailroom: PostgreSQL at ${serverOf(url)} has no database "no_such_mailroom_db"`),
	],
	[
		'a schema newer than the code',
		newerDatabase,
		(url) => new RegExp(`^mailroom: the database ${serverOf(url)}/\\w+ was written by a newer Mailroom: schema \\d+`),
	],
];

describe('mailroom serve on a database it cannot use', () => {
	it.each(CASES)(
		'exits non-zero, naming the problem in one line, on %s; nothing listens meanwhile',
		async (_name, databaseUrl, message) => {
			const url = await databaseUrl();
			const where = await freeWhere(newDataDir());
			let exited = false;
			const running = runCli(['serve', ...asFlags(whereSettings(where)), '--database-url', url]).finally(() => (exited = true));
			// Watched all along: a start that listened and then failed would show here, not after its exit.
			let listened = false;
			while (!exited) {
				if ((await accepts(where.smtpHost, where.smtpPort)) || (await accepts(where.httpHost, where.httpPort))) listened = true;
				await new Promise((resolve) => setTimeout(resolve, 20));
			}
			const result = await running;

			expect(result.code).not.toBe(0);
			expect(result.stderr).toMatch(message(url));
			expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
			expect(result.stdout).not.toContain('Mailroom is running');
			for (const secret of [TEST_PASSWORD, WRONG_PASSWORD]) expect(result.stderr + result.stdout).not.toContain(secret);
			expect(listened).toBe(false);
			// Not a SQLite store instead.
			expect(existsSync(join(where.dataDir, 'mailroom.sqlite'))).toBe(false);

			// The admin commands say the same.
			const listed = await runCli(['accounts', 'list', '--database-url', url]);
			expect(listed.code).not.toBe(0);
			expect(listed.stderr).toMatch(message(url));
		},
	);
});
