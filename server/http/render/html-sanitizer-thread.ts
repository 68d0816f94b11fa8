// Worker-thread entry: sanitising mail HTML is CPU-bound (sanitize-html takes about 150 ms per MB), so it runs here, off the
// event loop that speaks SMTP and HTTP.
import { sanitizeMailHtml } from './html-body';

export interface SanitizeTask {
	html: string;
	remoteImages: boolean;
}

export default function sanitize({ html, remoteImages }: SanitizeTask): string {
	return sanitizeMailHtml(html, { remoteImages });
}
