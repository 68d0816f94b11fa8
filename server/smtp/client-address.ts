/** IPv4 clients reach a dual-stack socket as ::ffff:a.b.c.d; report the plain address. */
export function plainIp(address: string | undefined): string {
	return (address ?? '').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');
}

/** Counts open connections per client address; a session is counted only once it was let in. */
export class ConnectionsPerIp {
	private readonly counts = new Map<string, number>();
	private readonly ipOf = new Map<string, string>();

	constructor(private readonly max: number) {}

	open(sessionId: string, ip: string): boolean {
		const count = this.counts.get(ip) ?? 0;
		if (count >= this.max) return false;
		this.counts.set(ip, count + 1);
		this.ipOf.set(sessionId, ip);
		return true;
	}

	close(sessionId: string): void {
		const ip = this.ipOf.get(sessionId);
		if (ip === undefined) return;
		this.ipOf.delete(sessionId);
		const count = this.counts.get(ip)! - 1;
		if (count) this.counts.set(ip, count);
		else this.counts.delete(ip);
	}
}
