/** The emails Send and Wait for Response sends, and the pages its resume webhook answers with. */

export interface Button {
	label: string;
	href: string;
	style: string;
}

const escapeHtml = (text: string) =>
	text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

/** The message as users type it in n8n: "\n" typed as two characters and <br> both break the line (as n8n's nodes read it). */
const messageText = (message: string) => message.trim().replace(/\\n/g, '\n').replace(/<br>/g, '\n');

const messageHtml = (message: string) => `<p style="white-space: pre-wrap; font-size: 15px">${escapeHtml(messageText(message))}</p>`;

const BUTTON_STYLES: Record<string, string> = {
	primary: 'background: #ff6d5a; color: #ffffff; border: 1px solid #ff6d5a',
	secondary: 'background: #ffffff; color: #4a4a4a; border: 1px solid #c4c4c4',
};

const buttonHtml = ({ label, href, style }: Button) =>
	`<a href="${escapeHtml(href)}" target="_blank" style="${BUTTON_STYLES[style] ?? BUTTON_STYLES.primary}; ` +
	`display: inline-block; padding: 10px 24px; margin: 4px; border-radius: 6px; text-decoration: none; font-size: 15px">${escapeHtml(label)}</a>`;

const htmlEmail = (message: string, buttons: Button[]) =>
	`<!DOCTYPE html><html><body style="font-family: sans-serif">${messageHtml(message)}<p>${buttons.map(buttonHtml).join(' ')}</p></body></html>`;

/** The plain-text part lists the links, for mail clients that show no HTML. */
const textEmail = (message: string, buttons: Button[]) =>
	[messageText(message), '', ...buttons.map(({ label, href }) => `${label}: ${href}`)].join('\n');

/** Approve (and Disapprove) buttons that open the resume webhook. */
export const approvalEmail = (message: string, buttons: Button[]) => ({
	text: textEmail(message, buttons),
	html: htmlEmail(message, buttons),
});

/** One button that opens the response form. */
export const formEmail = (message: string, button: Button) => ({ text: textEmail(message, [button]), html: htmlEmail(message, [button]) });

/** The message alone: the recipient answers the email. */
export const replyEmail = (message: string) => ({ text: messageText(message) });

const page = (title: string, body: string) =>
	'<!DOCTYPE html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
	`<title>${escapeHtml(title)}</title></head><body style="font-family: sans-serif; max-width: 36rem; margin: 3rem auto; padding: 0 1rem">${body}</body></html>`;

/** What the responder sees once the response is recorded (and what a second click sees: n8n answers it itself). */
export const RECORDED_PAGE = page(
	'Response recorded',
	'<h1>Got it, thanks</h1><p>Your response has been recorded. This page can be closed now.</p>',
);

export interface FormPage {
	title: string;
	description: string;
	buttonLabel: string;
}

/** The free-text form: it POSTs `text` to the same resume webhook. */
export const formPage = ({ title, description, buttonLabel }: FormPage) =>
	page(
		title || 'Response',
		(title ? `<h1>${escapeHtml(title)}</h1>` : '') +
			`<p style="white-space: pre-wrap">${escapeHtml(messageText(description))}</p>` +
			'<form method="POST"><label for="text">Response</label><br>' +
			'<textarea id="text" name="text" required rows="6" style="width: 100%; box-sizing: border-box"></textarea><br>' +
			`<button type="submit" style="margin-top: 1rem; padding: 8px 20px">${escapeHtml(buttonLabel)}</button></form>`,
	);
