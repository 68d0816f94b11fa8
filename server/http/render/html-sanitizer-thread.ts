// Worker-thread entry: sanitising mail HTML is CPU-bound (sanitize-html takes about 150 ms per MB), so it runs here, off the
// event loop that speaks SMTP and HTTP.
import { sanitizeMailHtml, type MailHtmlOptions, type SanitizedHtml } from './html-body';

export interface SanitizeTask extends MailHtmlOptions {
	html: string;
}

export default function sanitize({ html, ...options }: SanitizeTask): SanitizedHtml {
	return sanitizeMailHtml(html, options);
}
