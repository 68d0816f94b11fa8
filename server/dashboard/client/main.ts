import { ApiError, getJson, request, session, UNAUTHORIZED_EVENT, type Me } from './api.js';
import { busy, h, pageHeading, StatusLine } from './dom.js';
import { mailPage } from './pages/mail.js';
import { inboxPage } from './pages/inbox.js';
import { composePage } from './pages/compose.js';
import { sentPage } from './pages/sent.js';
import { addressesPage } from './pages/addresses.js';
import { activityPage } from './pages/activity.js';
import { accountPage } from './pages/account.js';
import { adminPage } from './pages/admin.js';

/** A page draws itself into `root` from the route's arguments and may return a function that stops its timers. */
export type Page = (root: HTMLElement, args: string[]) => (() => void) | void;

/** Hash routes (`#/inbox/<address>/<id>`), so the server only serves one page and the API is the only other thing it knows. */
const PAGES: Record<string, Page> = {
	mail: mailPage,
	inbox: inboxPage,
	compose: composePage,
	sent: sentPage,
	addresses: addressesPage,
	activity: activityPage,
	account: accountPage,
	admin: adminPage,
};

const main = document.getElementById('main') as HTMLElement;
const nav = document.getElementById('nav') as HTMLElement;
const adminLink = document.getElementById('nav-admin') as HTMLElement;
let stopPage: (() => void) | undefined;
/** The key the Admin link was last shown or hidden for. */
let adminLinkFor: string | null = null;

/** The Admin link, for admin keys only (the server refuses the others anyway): /api/me is asked once per signed-in key. */
function showAdminLink(): void {
	const key = session.key();
	if (key === adminLinkFor) return;
	adminLinkFor = key;
	adminLink.hidden = true;
	if (key)
		getJson<Me>('/api/me').then(
			(me) => {
				if (session.key() === key) adminLink.hidden = !me.admin;
			},
			() => undefined,
		);
}

/** A notice shown on the sign-in page: why the user is there. */
interface Notice {
	text: string;
	error: boolean;
}

/** `focus`: after navigation (not on first load, where the skip link comes first) the new page's heading takes focus. */
function render(notice?: Notice, focus = true): void {
	stopPage?.();
	stopPage = undefined;
	main.replaceChildren();
	const signedIn = session.key() !== null;
	nav.hidden = !signedIn;
	showAdminLink();
	if (!signedIn) {
		signInPage(main, notice);
	} else {
		const [name = '', ...args] = location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
		const route = name in PAGES ? name : 'mail';
		for (const link of nav.querySelectorAll('a')) {
			if (link.getAttribute('href') === `#/${route}`) link.setAttribute('aria-current', 'page');
			else link.removeAttribute('aria-current');
		}
		stopPage = PAGES[route](main, args) ?? undefined;
	}
	if (focus) main.querySelector('h1')?.focus();
}

function signInPage(root: HTMLElement, notice?: Notice): void {
	const status = new StatusLine();
	if (notice?.error) status.error(notice.text);
	else if (notice) status.ok(notice.text);
	const input = h('input', { id: 'api-key', name: 'api-key', type: 'password', autocomplete: 'off', required: true, spellcheck: 'false' });
	const button = h('button', { type: 'submit' }, 'Sign in');
	const form = h(
		'form',
		{ class: 'panel narrow' },
		h('label', { for: 'api-key' }, 'API key'),
		input,
		h('p', { class: 'hint', id: 'api-key-hint' }, 'The key is kept in this browser tab only, until you sign out or close the tab.'),
		button,
		status.element,
	);
	input.setAttribute('aria-describedby', 'api-key-hint');
	form.addEventListener('submit', (event) => {
		event.preventDefault();
		const key = input.value.trim();
		void busy(button, async () => {
			try {
				await request('/api/me', { key });
				session.signIn(key);
				if (!location.hash.startsWith('#/')) location.hash = '#/mail';
				render();
			} catch (error) {
				status.error(error instanceof ApiError && error.status === 401 ? `Sign-in failed: ${error.message}` : error);
				input.focus();
			}
		});
	});
	root.append(pageHeading('Sign in'), form);
}

document.getElementById('sign-out')?.addEventListener('click', () => {
	session.signOut();
	render({ text: 'You are signed out.', error: false });
});
// The skip link focuses the content without touching the hash the router reads.
document.querySelector('.skip-link')?.addEventListener('click', (event) => {
	event.preventDefault();
	main.focus();
});
window.addEventListener('hashchange', () => render());
window.addEventListener(UNAUTHORIZED_EVENT, () => {
	session.signOut();
	render({ text: 'The server no longer accepts this API key; sign in again.', error: true });
});
render(undefined, false);
