import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startTestMailroom, tempDataDir, type TestMailroom } from '../helpers/mailroom';
import { enc, expectError, sendMail } from '../helpers/messages';

const CLI = require.resolve('mailroom-server/dist/cli.js');

/** Runs `mailroom <args> --data-dir <dir>`; never throws, so failures can be asserted. */
async function mailroom(dataDir: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
	try {
		const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, ...args, '--data-dir', dataDir]);
		return { code: 0, stdout, stderr };
	} catch (err) {
		const failed = err as { code: number; stdout: string; stderr: string };
		return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
	}
}

describe('mailroom domains (admin CLI)', () => {
	let server: TestMailroom;
	let dataDir: string;
	let ann: { id: string; key: string };
	beforeAll(async () => {
		dataDir = tempDataDir();
		// A running server on the same database: the CLI's changes apply to it at once.
		server = await startTestMailroom({ dataDir, domains: ['example.test'] });
		ann = server.createAccount('ann');
		server.createAccount('bob');
	});
	afterAll(() => server.stop());

	it('add gives a domain to an account: the server accepts its mail, private to that account', async () => {
		await expect(sendMail(server, { to: 'x@cli.test' })).rejects.toThrow();
		const added = await mailroom(dataDir, 'domains', 'add', 'ann', 'CLI.test');
		expect(added).toMatchObject({ code: 0, stdout: `Domain cli.test belongs to account "ann" (id ${ann.id}).\n` });
		await sendMail(server, { to: 'x@cli.test' });
		expect((await server.api(`/api/addresses/${enc('x@cli.test')}/messages`, { key: ann.key })).body).toHaveLength(1);
		expectError(await server.api(`/api/addresses/${enc('x@cli.test')}/messages`), 401);
		expect((await server.api('/api/domains', { key: ann.key })).body.map((d: { _id: string }) => d._id)).toEqual(['cli.test']);
	});

	it('add is a no-op for the same owner and refused for another account, an unknown account or a bad name', async () => {
		await mailroom(dataDir, 'domains', 'add', 'ann', 'owned.test');
		expect((await mailroom(dataDir, 'domains', 'add', 'ann', 'owned.test')).code).toBe(0);
		expect(await mailroom(dataDir, 'domains', 'add', 'bob', 'owned.test')).toMatchObject({
			code: 2,
			stderr: 'mailroom: owned.test is owned by another account\n',
		});
		expect(await mailroom(dataDir, 'domains', 'add', 'nobody', 'free.test')).toMatchObject({
			code: 2,
			stderr: expect.stringMatching(/no account "nobody"/),
		});
		expect(await mailroom(dataDir, 'domains', 'add', 'ann', 'bad_name!')).toMatchObject({
			code: 2,
			stderr: expect.stringMatching(/not a valid domain name/),
		});
		expect(server.domains.get('owned.test')!.owner).toBe(ann.id);
		expect(server.domains.get('free.test')).toBeUndefined();
	});

	it('list shows every domain with its owner and catch-all address', async () => {
		await mailroom(dataDir, 'domains', 'add', 'bob', 'bob.test');
		server.addresses.setCatchAll('owned.test', 'all@owned.test', ann.id);
		const { code, stdout } = await mailroom(dataDir, 'domains', 'list');
		expect(code).toBe(0);
		const lines = stdout.trimEnd().split('\n');
		expect(lines[0]).toMatch(/^DOMAIN\s+OWNER\s+CATCH-ALL\s+CREATED$/);
		expect(lines.slice(1).map((line) => line.split(/\s+/).slice(0, 3))).toEqual([
			['bob.test', 'bob', expect.stringMatching(/^\d{4}-/)],
			['cli.test', 'ann', expect.stringMatching(/^\d{4}-/)],
			['owned.test', 'ann', 'all@owned.test'],
		]);
	});

	it('remove makes the mail public again; an unowned domain is an error', async () => {
		expect(await mailroom(dataDir, 'domains', 'remove', 'cli.test')).toMatchObject({ code: 0, stdout: 'Removed domain cli.test.\n' });
		expect((await server.api(`/api/addresses/${enc('x@cli.test')}/messages`)).body).toHaveLength(1);
		expect(await mailroom(dataDir, 'domains', 'remove', 'cli.test')).toMatchObject({
			code: 2,
			stderr: expect.stringMatching(/no account owns the domain "cli.test"/),
		});
		await expect(sendMail(server, { to: 'y@cli.test' })).rejects.toThrow();
	});
});
