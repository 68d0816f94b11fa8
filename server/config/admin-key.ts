import { readFile } from 'node:fs/promises';
import { ConfigError, checkAdminKey, type MailroomConfig } from './settings';

/**
 * The admin key the settings give for the first start of an empty database: --admin-key, or what --admin-key-file holds
 * (without the line break a file ends with); undefined when neither is set. Read at every start, so a missing or bad file
 * stops the start before anything is opened.
 */
export async function givenAdminKey(config: MailroomConfig): Promise<string | undefined> {
	if (!config.adminKeyFile) return config.adminKey;
	let text: string;
	try {
		text = await readFile(config.adminKeyFile, 'utf8');
	} catch (err) {
		throw new ConfigError(`--admin-key-file: cannot read ${config.adminKeyFile}: ${(err as Error).message}`);
	}
	return checkAdminKey(text.replace(/\r?\n$/, ''), `the admin key in ${config.adminKeyFile}`);
}
