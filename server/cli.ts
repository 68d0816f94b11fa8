#!/usr/bin/env node
import './compile-cache';
import { constants } from 'node:os';
import { Command, Option } from 'commander';
import { ConfigError, SETTINGS, resolveConfig } from './config/settings';
import { AccountError, DomainError, StoreOpenError, StoreUnavailableError, type Store } from './store/store';
import { openStore } from './store/open-store';
import { isDomain } from './mail/email-address';
import { CopyStoreError } from './store/copy/copy-store-error';
import type { Logger } from './log';

const DATA_DIR = SETTINGS.find((setting) => setting.key === 'dataDir')!;
const DATABASE_URL = SETTINGS.find((setting) => setting.key === 'databaseUrl')!;

/** Where an admin command finds the store: --data-dir or --database-url (or their environment variables), as serve does. */
interface StoreFlags {
	dataDir?: string;
	databaseUrl?: string;
}

/** Runs an admin command on the store of the server, also while it runs. */
async function withStore(flags: StoreFlags, command: (store: Store) => Promise<void>): Promise<void> {
	const config = resolveConfig({ dataDir: flags.dataDir, databaseUrl: flags.databaseUrl });
	const store = await openStore(config, 'admin', `cli-${process.pid}`);
	try {
		await command(store);
	} finally {
		await store.close();
	}
}

/** The options that say where the store is, for every admin command. */
function withStoreOptions(command: Command): Command {
	return command
		.addOption(new Option(DATA_DIR.flag, `${DATA_DIR.description} [env ${DATA_DIR.env}, default ${DATA_DIR.default}]`))
		.addOption(new Option(DATABASE_URL.flag, `${DATABASE_URL.description} [env ${DATABASE_URL.env}]`));
}

/** A whole-number argument, or a clear error naming it. */
function wholeNumber(name: string, value: string, min: number): number {
	if (!/^\d+$/.test(value) || Number(value) < min) throw new AccountError(`${name} must be a whole number >= ${min}, got "${value}"`);
	return Number(value);
}

function keyText(key: string, keyId: string): string {
	return `API key (id ${keyId}), shown only this once:\n  ${key}`;
}

function printKey(key: string, keyId: string): void {
	console.log(keyText(key, keyId));
}

const program = new Command('mailroom')
	.description('Mailroom: a self-hosted inbound and outbound email service with a REST API')
	.showHelpAfterError()
	.configureOutput({ outputError: (text, write) => write(`mailroom: ${text.replace(/^error: /, '')}`) });

const serve = program.command('serve').description('run the SMTP listener and the HTTP API');
// Each setting is declared once (SETTINGS): its flag, and the config key its value goes to. Commander keeps a value under
// the attribute name it makes of the flag (--dkim-key: dkimKey), so that is where each setting's value is read from.
const serveOptions = SETTINGS.map((setting) => {
	const defaults = setting.default === undefined ? '' : `, default ${setting.default === '' ? '""' : setting.default}`;
	const option = new Option(setting.flag, `${setting.description} [env ${setting.env}${defaults}]`);
	serve.addOption(option);
	return { key: setting.key, attribute: option.attributeName() };
});
serve.action(async (options: Record<string, string | undefined>) => {
	const flags = Object.fromEntries(serveOptions.map(({ key, attribute }) => [key, options[attribute]]));
	const config = resolveConfig(flags);
	// Loaded here, not at the top: the admin commands need only the store, and start in a third of the time without it.
	const [{ startMailroom }, { createLogger }] = await Promise.all([import('./app.js'), import('./log.js')]);
	const log = createLogger(config.logLevel);
	const mailroom = await startMailroom(config, log);
	if (mailroom.bootstrap) {
		const { account, key, keyGiven } = mailroom.bootstrap;
		const keyId = (await mailroom.accounts.listKeys(account.id))[0].id;
		// One write, so no log line of the running server can land in the middle of it. A key the settings gave is never shown.
		console.log(
			[
				`Created the admin account "${account.name}" on this new database.`,
				keyGiven ? `Its API key (id ${keyId}) is the one given by --admin-key or --admin-key-file.` : keyText(key, keyId),
				'Make more with: mailroom accounts create <name>  and  mailroom keys create <account>',
			].join('\n'),
		);
	}
	stopOnSignals(() => mailroom.close(), log);
});

/**
 * Stops the server on SIGTERM or SIGINT, and exits 0 once it has stopped. A second signal does not cut the stop short: npm
 * start passes a Ctrl-C on to the server, which so gets SIGINT twice. A third forces the exit, with the code a shell gives a
 * process that signal ended (128 + its number: 130 for SIGINT, 143 for SIGTERM).
 */
function stopOnSignals(close: () => Promise<void>, log: Logger): void {
	let received = 0;
	const onSignal = (signal: NodeJS.Signals) => {
		received += 1;
		if (received === 1) {
			log.info({ signal }, 'Mailroom is stopping');
			close().then(
				() => process.exit(0),
				(err: Error) => {
					console.error(`mailroom: shutdown failed: ${err.message}`);
					process.exit(1);
				},
			);
		} else if (received === 2) {
			log.warn({ signal }, 'Shutdown is under way (SMTP transactions in progress finish first); a further signal forces the exit');
		} else {
			log.error({ signal }, 'Forced exit: the shutdown was cut short (the database is recovered at the next start)');
			process.exit(128 + constants.signals[signal]);
		}
	};
	process.on('SIGTERM', onSignal);
	process.on('SIGINT', onSignal);
}

const accounts = program.command('accounts').description('manage accounts');
withStoreOptions(accounts.command('create <name>'))
	.description('create an account and its first API key')
	.option('--admin', 'make it an admin account')
	.option('--credits <n>', 'initial outgoing-message credits', '0')
	.action((name: string, options: StoreFlags & { admin?: boolean; credits: string }) =>
		withStore(options, async ({ accounts: store }) => {
			const account = await store.create(name, { admin: options.admin, credits: wholeNumber('--credits', options.credits, 0) });
			const { key, info } = await store.createKey(account.id, 'created with the account');
			console.log(`Created account "${account.name}" (id ${account.id}).`);
			printKey(key, info.id);
		}),
	);
withStoreOptions(accounts.command('list'))
	.description('list accounts')
	.action((options: StoreFlags) =>
		withStore(options, async ({ accounts: store }) => {
			const rows = (await store.list()).map((a) => [a.id, a.name, String(a.credits), a.isAdmin ? 'admin' : '', a.created]);
			printTable(['ID', 'NAME', 'CREDITS', 'ROLE', 'CREATED'], rows);
		}),
	);

const keys = program.command('keys').description('manage API keys (stored only as hashes)');
withStoreOptions(keys.command('create <account>'))
	.description('create an API key for an account (id or name)')
	.option('--label <text>', 'a note saying what the key is for', '')
	.action((account: string, options: StoreFlags & { label: string }) =>
		withStore(options, async ({ accounts: store }) => {
			const { key, info } = await store.createKey((await store.require(account)).id, options.label);
			printKey(key, info.id);
		}),
	);
withStoreOptions(keys.command('list <account>'))
	.description("list an account's API keys (never the keys themselves)")
	.action((account: string, options: StoreFlags) =>
		withStore(options, async ({ accounts: store }) => {
			const rows = (await store.listKeys((await store.require(account)).id)).map((k) => [
				k.id,
				k.label,
				k.created,
				k.revoked ? `revoked ${k.revoked}` : 'active',
			]);
			printTable(['ID', 'LABEL', 'CREATED', 'STATE'], rows);
		}),
	);
withStoreOptions(keys.command('revoke <keyId>'))
	.description('revoke an API key: it stops working at once')
	.action((keyId: string, options: StoreFlags) =>
		withStore(options, async ({ accounts: store }) => {
			await store.revokeKey(keyId);
			console.log(`Revoked API key ${keyId}.`);
		}),
	);

withStoreOptions(program.command('credits').description('manage outgoing-message credits').command('add <account> <n>'))
	.description('add n outgoing-message credits to an account (id or name)')
	.action((account: string, n: string, options: StoreFlags) =>
		withStore(options, async ({ accounts: store }) => {
			const updated = await store.addCredits((await store.require(account)).id, wholeNumber('credits', n, 1));
			console.log(`Account "${updated.name}" now has ${updated.credits} outgoing-message credits.`);
		}),
	);

const domains = program
	.command('domains')
	.description('manage custom domains: all mail to a domain is private to the account that owns it');
withStoreOptions(domains.command('add <account> <domain>'))
	.description('give a domain to an account (id or name); SMTP then accepts its mail')
	.action((account: string, domain: string, options: StoreFlags) =>
		withStore(options, async (stores) => {
			const name = domain.trim().toLowerCase();
			if (!isDomain(name)) throw new DomainError(`"${domain}" is not a valid domain name`);
			const owner = await stores.accounts.require(account);
			await stores.domains.claim(name, owner.id);
			console.log(`Domain ${name} belongs to account "${owner.name}" (id ${owner.id}).`);
		}),
	);
withStoreOptions(domains.command('list'))
	.description('list custom domains and their owners')
	.action((options: StoreFlags) =>
		withStore(options, async (stores) => {
			const rows: string[][] = [];
			for (const d of await stores.domains.list()) {
				rows.push([d._id, (await stores.accounts.find(d.owner))?.name ?? d.owner, d.catchAll ?? '', d.created]);
			}
			printTable(['DOMAIN', 'OWNER', 'CATCH-ALL', 'CREATED'], rows);
		}),
	);
withStoreOptions(domains.command('remove <domain>'))
	.description('take a domain from its account: its mail becomes public (reserved addresses stay reserved)')
	.action((domain: string, options: StoreFlags) =>
		withStore(options, async (stores) => {
			const name = domain.trim().toLowerCase();
			if (!(await stores.domains.remove(name))) throw new DomainError(`no account owns the domain "${name}" (see: mailroom domains list)`);
			console.log(`Removed domain ${name}.`);
		}),
	);

program
	.command('copy-store')
	.description('copy the SQLite store of a data folder into an empty PostgreSQL database, for running on several nodes')
	.addOption(new Option('--from-data-dir <dir>', 'the data folder to copy (its mailroom.sqlite)').env(DATA_DIR.env).makeOptionMandatory())
	.addOption(
		new Option('--to-database-url <url>', 'the empty PostgreSQL database to copy into').env(DATABASE_URL.env).makeOptionMandatory(),
	)
	.addHelpText(
		'after',
		`
Stop the server first: the copy reads the store as it was when the copy began, so mail arriving meanwhile is not copied.
The database must be empty (createdb mailroom); the copy is one transaction, so one that fails leaves it empty.
Then start every node with --database-url <url> (or ${DATABASE_URL.env}) naming it.`,
	)
	.action(async (options: { fromDataDir: string; toDatabaseUrl: string }) => {
		const [{ copyStore }, { describeProgress, describeSummary }] = await Promise.all([
			import('./store/copy-store.js'),
			import('./store/copy/report.js'),
		]);
		const summary = await copyStore({
			fromDataDir: options.fromDataDir,
			toDatabaseUrl: DATABASE_URL.parse(options.toDatabaseUrl) as string,
			onProgress: (step) => console.log(describeProgress(step)),
		});
		console.log(describeSummary(summary));
	});

function printTable(header: string[], rows: string[][]): void {
	const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i].length)));
	for (const row of [header, ...rows])
		console.log(
			row
				.map((cell, i) => cell.padEnd(widths[i]))
				.join('  ')
				.trimEnd(),
		);
}

program.parseAsync().catch((err: NodeJS.ErrnoException) => {
	// Operator mistakes (bad values, unusable folder, port in use, missing TLS file) need the message, not a stack.
	const systemError = typeof err.code === 'string' && /^E[A-Z]+$/.test(err.code);
	const expected =
		err instanceof ConfigError ||
		err instanceof StoreOpenError ||
		err instanceof StoreUnavailableError ||
		err instanceof AccountError ||
		err instanceof DomainError ||
		err instanceof CopyStoreError ||
		systemError;
	console.error(`mailroom: ${expected ? err.message : err.stack}`);
	process.exit(expected ? 2 : 1);
});
