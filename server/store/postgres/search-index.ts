import type { AddressObject } from '../../schemas/message';
import type { Db } from './database';
import { domainOf } from './locks';

/**
 * What account-wide search compares a term with, for one record: its senders' addresses, its recipients' addresses and
 * its inbox, and its subject (as SQLite's messages_search). Folded by JavaScript, as the terms are, so that the match is
 * case-insensitive in any script whatever the server's locale.
 */
export interface SearchText {
	sender: string;
	recipients: string;
	subject: string;
}

const addressesIn = (list: AddressObject[]) => list.map((entry) => entry.address).join(' ');

export const fold = (text: string) => text.toLowerCase();

export const searchText = (from: AddressObject[], to: AddressObject[], inbox: string, subject: string): SearchText => ({
	sender: fold(addressesIn(from)),
	recipients: fold(`${addressesIn(to)} ${inbox}`),
	subject: fold(subject),
});

/** Rows indexed at a time when an inbox becomes private. */
const BATCH = 1000;

interface IndexedRow {
	seq: number;
	received: number;
	inbox: string;
	from_json: string;
	to_json: string;
	subject: string;
}

/**
 * Keeps messages_search holding exactly the private mail: a message is in it while its inbox is reserved or its domain is
 * owned. Storing a message indexes it then and there (see MessageStore.insert); these follow the changes of ownership,
 * as SQLite's triggers do. Call them inside the transaction that makes the change, holding its domain's lock.
 */
export class SearchIndex {
	constructor(private readonly tx: Db) {}

	/** An address was reserved: its mail is private now, unless its domain's was already. */
	async reserved(email: string): Promise<void> {
		if (!(await this.owned(domainOf(email)))) await this.add('m.inbox = $1', email);
	}

	/** An address was released: its mail is public again, unless its domain is owned. */
	async released(email: string): Promise<void> {
		if (await this.owned(domainOf(email))) return;
		await this.tx.run('DELETE FROM messages_search WHERE seq IN (SELECT seq FROM messages WHERE inbox = $1)', [email]);
	}

	/** A domain was claimed: the mail of its addresses that are not reserved is private now. */
	claimed(domain: string): Promise<void> {
		return this.add('m.domain = $1 AND m.inbox NOT IN (SELECT email FROM addresses)', domain);
	}

	/** A domain was given up: the mail of its addresses that are not reserved is public again. */
	async givenUp(domain: string): Promise<void> {
		await this.tx.run(
			`DELETE FROM messages_search
				WHERE seq IN (SELECT seq FROM messages WHERE domain = $1 AND inbox NOT IN (SELECT email FROM addresses))`,
			[domain],
		);
	}

	private async owned(domain: string): Promise<boolean> {
		return (await this.tx.row('SELECT 1 FROM domains WHERE domain = $1', [domain])) !== undefined;
	}

	/** Indexes the messages `condition` selects, newest first along the inbox or domain index, a batch at a time. */
	private async add(condition: string, name: string): Promise<void> {
		for (let before: [number, number] = [Number.MAX_SAFE_INTEGER, 0]; ;) {
			const rows = await this.tx.rows<IndexedRow>(
				`SELECT m.seq, m.received, m.inbox, m.from_json, m.to_json, m.subject FROM messages m
					WHERE ${condition} AND (m.received, m.seq) < ($2, $3) ORDER BY m.received DESC, m.seq DESC LIMIT ${BATCH}`,
				[name, ...before],
			);
			if (rows.length === 0) return;
			const texts = rows.map((row) =>
				searchText(JSON.parse(row.from_json) as AddressObject[], JSON.parse(row.to_json) as AddressObject[], row.inbox, row.subject),
			);
			await this.tx.run(
				`INSERT INTO messages_search (seq, sender, recipients, subject)
					SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[]) ON CONFLICT (seq) DO NOTHING`,
				[rows.map((row) => row.seq), ...(['sender', 'recipients', 'subject'] as const).map((part) => texts.map((text) => text[part]))],
			);
			const last = rows[rows.length - 1];
			before = [last.received, last.seq];
		}
	}
}
