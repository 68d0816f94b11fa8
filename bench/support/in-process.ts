import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveConfig, startMailroom, type Mailroom, type MailroomConfig } from 'mailroom-server';

/**
 * Starts the server in the calling process (startMailroom from the built package): default settings but for `overrides`, on a
 * temporary data folder (removed by `stop`) and free ports, with the per-client rate limits raised out of the way.
 */
export async function startInProcess(
	name: string,
	overrides: Partial<MailroomConfig> = {},
): Promise<{ mailroom: Mailroom; stop: () => Promise<void> }> {
	const dataDir = mkdtempSync(join(tmpdir(), `mailroom-${name}-bench-`));
	const mailroom = await startMailroom({
		...resolveConfig({}, {}),
		dataDir,
		smtpPort: 0,
		httpPort: 0,
		logLevel: 'warn',
		rateLimitIp: 1e8,
		rateLimitKey: 1e8,
		...overrides,
	});
	const stop = async () => {
		await mailroom.close();
		rmSync(dataDir, { recursive: true, force: true });
	};
	return { mailroom, stop };
}
