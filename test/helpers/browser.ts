import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';

/** Debian's chromium: tests never download a browser (CI installs this one with apt). */
export const CHROMIUM = '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
	return chromium.launch({
		executablePath: CHROMIUM,
		headless: true,
		args: [
			'--no-sandbox',
			'--disable-gpu',
			'--disable-background-networking',
			'--disable-component-update',
			'--disable-sync',
			'--no-first-run',
		],
	});
}

/** Screenshots for a reviewer to look at; the folder is gitignored. */
export const SCREENSHOTS = join(__dirname, '..', '..', 'test-artifacts', 'screenshots');

/** `fullPage: false` for views with frames, which full-page captures can leave blank. */
export async function screenshot(page: Page, name: string, fullPage = true): Promise<void> {
	mkdirSync(SCREENSHOTS, { recursive: true });
	await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage });
}

/** A screenshot of one part of the page (a section), for the docs' pictures of it. */
export async function screenshotOf(part: Locator, name: string): Promise<void> {
	mkdirSync(SCREENSHOTS, { recursive: true });
	await part.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
}
