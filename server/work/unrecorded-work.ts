/**
 * Leased work (a webhook delivery, an outbox entry) whose attempt failed before its outcome was recorded, the database
 * having gone away, say. Its node still holds the lease, so no node would take it up before the lease ran out (a minute by
 * default). Each is given back `backoffMs` after its failure, for the next claim to take it again: soon, but not at once,
 * so that work failing for another reason is not attempted again and again without pause.
 */
export class UnrecordedWork {
	/** Each id, and when its lease is to be given back (epoch ms). */
	private readonly dueAt = new Map<string, number>();

	constructor(private readonly backoffMs: number) {}

	/** Work whose attempt failed at `now`. */
	add(id: string, now: number): void {
		this.dueAt.set(id, now + this.backoffMs);
	}

	/** Gives back, through `release`, the leases due by `now`; they are forgotten once it has succeeded. */
	async giveBack(now: number, release: (ids: string[]) => Promise<void>): Promise<void> {
		const ids = [...this.dueAt].filter(([, at]) => at <= now).map(([id]) => id);
		if (ids.length === 0) return;
		await release(ids);
		for (const id of ids) this.dueAt.delete(id);
	}

	/** When the next lease is to be given back; Infinity when there is none. */
	next(): number {
		let earliest = Infinity;
		for (const at of this.dueAt.values()) earliest = Math.min(earliest, at);
		return earliest;
	}
}
