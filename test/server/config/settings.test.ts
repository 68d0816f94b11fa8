import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, SETTINGS, parseSize } from 'mailroom-server/dist/config/settings';

describe('parseSize', () => {
	it.each([
		['1048576', 1048576],
		['25MB', 25 * 1024 * 1024],
		['25mb', 25 * 1024 * 1024],
		['25M', 25 * 1024 * 1024],
		['512KB', 512 * 1024],
		['512k', 512 * 1024],
		['1GB', 1024 ** 3],
		['100b', 100],
		[' 10 KB ', 10 * 1024],
		['1.5MB', 1.5 * 1024 * 1024],
		['0.5k', 512],
		['1.0001', 1],
	])('reads %j as %d bytes', (value, bytes) => {
		expect(parseSize(value)).toBe(bytes);
	});

	it.each(['', 'MB', 'abc', '10TB', '10 MiB', '-5', '-5MB', '1,5MB', '1e6', '25 MB extra', '0x10', '0', '0KB', '0.4'])(
		'refuses %j with a ConfigError that quotes it',
		(value) => {
			expect(() => parseSize(value)).toThrow(ConfigError);
			expect(() => parseSize(value)).toThrow(`"${value}"`);
		},
	);
});

describe('the README', () => {
	const readme = readFileSync(join(__dirname, '../../../README.md'), 'utf8');
	// These defaults depend on the machine, so the README describes them in words.
	const MACHINE_DEFAULTS = ['hostname', 'parseWorkers'];

	it.each(SETTINGS.map((setting) => [setting.flag, setting] as const))(
		'documents %s with its environment variable and default',
		(flag, setting) => {
			const row = readme.split('\n').find((line) => line.startsWith(`| \`${flag.split(' ')[0]} `));
			expect(row).toBeDefined();
			expect(row).toContain(`\`${setting.env}\``);
			if (setting.default && !MACHINE_DEFAULTS.includes(setting.key)) expect(row).toContain(`\`${setting.default}\``);
		},
	);
});
