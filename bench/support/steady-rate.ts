/**
 * Sends `total` messages at `rate` per second over reused connections: connection c sends
 * messages c, c + n, c + 2n, ... each at its slot on the schedule. Returns when the run
 * started and how many sends started behind schedule (a server that could not keep up).
 */
export async function atSteadyRate<C>(
	connections: C[],
	rate: number,
	total: number,
	send: (connection: C, index: number) => Promise<void>,
): Promise<{ start: number; late: number }> {
	const start = performance.now();
	let late = 0;
	await Promise.all(
		connections.map(async (connection, c) => {
			for (let i = c; i < total; i += connections.length) {
				const wait = start + (i * 1000) / rate - performance.now();
				if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
				else late++;
				await send(connection, i);
			}
		}),
	);
	return { start, late };
}
