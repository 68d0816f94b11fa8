/**
 * A check run at most once at a time, its answer kept for `reuseMs` once it settles, however many ask meanwhile: what
 * /readyz asks of the store and the disk, which anyone may ask (it needs no key) as often as they like.
 */
export class SharedCheck<T> {
	private inFlight?: Promise<T>;
	private settled?: { at: number; answer: T };

	/** `run` never rejects: its failures are answers too. */
	constructor(
		private readonly run: () => Promise<T>,
		private readonly reuseMs: number,
	) {}

	answer(): Promise<T> {
		if (this.settled && Date.now() - this.settled.at < this.reuseMs) return Promise.resolve(this.settled.answer);
		this.inFlight ??= this.run().then((answer) => {
			this.inFlight = undefined;
			this.settled = { at: Date.now(), answer };
			return answer;
		});
		return this.inFlight;
	}
}
