import type { FastifyInstance } from 'fastify';
import type { MailroomConfig } from './config/settings';
import { openDatabase, type Db } from './store/database';
import { AccountStore, type Account } from './store/accounts';
import { AddressStore } from './store/addresses';
import { MessageStore } from './store/messages';
import { GroupCommit } from './store/group-commit';
import { ParserPool } from './parse/parser-pool';
import { Ingest } from './ingest/ingest';
import { SmtpIngest } from './smtp/smtp-ingest';
import { buildHttpServer } from './http/http-server';
import { createLogger, type Logger } from './log';

export interface Mailroom {
	config: MailroomConfig;
	smtpPort: number;
	httpPort: number;
	httpUrl: string;
	db: Db;
	accounts: AccountStore;
	addresses: AddressStore;
	ingest: Ingest;
	http: FastifyInstance;
	/** Set on the first start of an empty database: the admin account and its only clear-text key. */
	bootstrap?: { account: Account; key: string };
	close(): Promise<void>;
}

/** Creates the admin account of an empty database, so a new install is usable at once. */
function bootstrapAdmin(accounts: AccountStore): Mailroom['bootstrap'] {
	if (!accounts.isEmpty()) return undefined;
	const account = accounts.create('admin', { admin: true });
	return { account, key: accounts.createKey(account.id, 'created on first start').key };
}

export async function startMailroom(config: MailroomConfig, log: Logger = createLogger(config.logLevel)): Promise<Mailroom> {
	const db = openDatabase(config.dataDir, config.durability);
	const accounts = new AccountStore(db);
	const addresses = new AddressStore(db);
	const messages = new MessageStore(db);
	const bootstrap = bootstrapAdmin(accounts);
	const parser = new ParserPool(config.parseWorkers);
	const commit = new GroupCommit(db);
	const ingest = new Ingest(parser, commit, messages, log);
	const ownedDomain = db.prepare('SELECT 1 FROM domains WHERE domain = ?');

	const smtp = new SmtpIngest({
		hostname: config.hostname,
		maxMessageSize: config.maxMessageSize,
		tlsCert: config.tlsCert,
		tlsKey: config.tlsKey,
		acceptsDomain: (domain) => config.domains.length === 0 || config.domains.includes(domain) || ownedDomain.get(domain) !== undefined,
		resolveRecipient: (address, domain) => ({ inbox: address, originalInbox: address, domain }),
		ingest,
		log,
	});
	const http = await buildHttpServer({ config, accounts, addresses, messages, log });

	const smtpPort = await smtp.listen(config.smtpPort, config.smtpHost);
	await http.listen({ port: config.httpPort, host: config.httpHost });
	const httpPort = (http.server.address() as { port: number }).port;
	log.info({ smtp: `${config.smtpHost}:${smtpPort}`, http: `${config.httpHost}:${httpPort}`, dataDir: config.dataDir }, 'Mailroom is running');

	let closing: Promise<void> | undefined;
	const close = () =>
		(closing ??= (async () => {
			await Promise.all([smtp.close(config.shutdownTimeout * 1000), http.close()]);
			await ingest.settled();
			await commit.drained();
			await parser.close();
			db.close();
			log.info('Mailroom stopped');
		})());

	return {
		config,
		smtpPort,
		httpPort,
		httpUrl: `http://${config.httpHost.includes(':') ? `[${config.httpHost}]` : config.httpHost}:${httpPort}`,
		db,
		accounts,
		addresses,
		ingest,
		http,
		bootstrap,
		close,
	};
}
