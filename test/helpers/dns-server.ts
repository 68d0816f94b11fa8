import dns2 from 'dns2';

const { Packet } = dns2;

/** The records a test publishes: TXT strings by name (SPF, DKIM keys, DMARC), A addresses by name. */
export interface Zone {
	txt?: Record<string, string[]>;
	a?: Record<string, string[]>;
}

/**
 * A real DNS server on 127.0.0.1 (UDP, and TCP on the same port for long answers), answering from a zone: for the tests
 * and the benchmarks of sender authentication.
 */
export interface TestDnsServer {
	/** `127.0.0.1:<port>`: what --dns-servers takes. */
	address: string;
	/** Lookups asked so far, as `TYPE name`. */
	queries: string[];
	/** Names it never answers (a resolver that does not answer: temperror). */
	silent: Set<string>;
	close(): Promise<void>;
}

/** TXT data longer than 255 bytes goes as several character-strings, as DKIM keys are published. */
const characterStrings = (text: string) => text.match(/[^]{1,255}/g) ?? [''];

export async function startDnsServer(zone: Zone): Promise<TestDnsServer> {
	const queries: string[] = [];
	const silent = new Set<string>();
	const handle: dns2.DnsHandler = (request, send) => {
		const [question] = request.questions;
		const name = question.name.toLowerCase();
		const type = Object.keys(Packet.TYPE).find((key) => Packet.TYPE[key as keyof typeof Packet.TYPE] === question.type) ?? '?';
		queries.push(`${type} ${name}`);
		if (silent.has(name)) return;
		const response = Packet.createResponseFromRequest(request);
		// Plain records: dns2 encodes them by their type (its typings ask for its Resource class).
		const answer = (fields: object) =>
			response.answers.push({ name: question.name, class: Packet.CLASS.IN, ttl: 300, ...fields } as (typeof response.answers)[number]);
		if (type === 'TXT') for (const text of zone.txt?.[name] ?? []) answer({ type: Packet.TYPE.TXT, data: characterStrings(text) });
		else if (type === 'A') for (const address of zone.a?.[name] ?? []) answer({ type: Packet.TYPE.A, address });
		// A name with no record of any type does not exist (NXDOMAIN); one with others has none of this type (NODATA).
		const known = name in (zone.txt ?? {}) || name in (zone.a ?? {});
		if (!known) response.header.rcode = 3;
		void send(response);
	};
	const udp = dns2.createUDPServer(handle);
	await udp.listen(0, '127.0.0.1');
	const port = udp.address().port;
	const tcp = dns2.createTCPServer(handle);
	await new Promise<void>((resolve) => tcp.listen(port, '127.0.0.1', () => resolve()));
	return {
		address: `127.0.0.1:${port}`,
		queries,
		silent,
		close: async () => {
			await new Promise<void>((resolve) => udp.close(() => resolve()));
			await new Promise<void>((resolve) => tcp.close(() => resolve()));
		},
	};
}
