/**
 * A tiny element builder. Text always goes in as text nodes, never as HTML, so nothing taken from a message can inject
 * markup into the dashboard.
 */
export type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;

export function h<K extends keyof HTMLElementTagNameMap>(
	tag: K,
	attrs: Attrs = {},
	...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
	const element = document.createElement(tag);
	for (const [name, value] of Object.entries(attrs)) {
		if (typeof value === 'function') element.addEventListener(name.slice(2), value);
		else if (value === true) element.setAttribute(name, '');
		else if (value !== false && value !== null && value !== undefined) element.setAttribute(name, String(value));
	}
	append(element, children.flat());
	return element;
}

export function append(parent: Node, children: Child[]): void {
	for (const child of children) {
		if (child === null || child === undefined || child === false || child === '') continue;
		parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
	}
}

/** Text read by screen readers but not shown: tells apart the many "Settings" or "Release" buttons of a list. */
export const hidden = (text: string) => h('span', { class: 'visually-hidden' }, text);

/** A polite live region for the outcome of an action: success or the server's error message. */
export class StatusLine {
	readonly element = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' });

	ok(text: string): void {
		this.show(text, 'ok');
	}

	error(error: unknown): void {
		this.show(error instanceof Error ? error.message : String(error), 'error');
	}

	clear(): void {
		this.show('', '');
	}

	private show(text: string, kind: string): void {
		this.element.className = `status ${kind}`;
		this.element.textContent = text;
	}
}

/** A table that becomes one card per row on narrow screens (the CSS shows each cell's data-label there). */
export function table(caption: string, headings: string[], rows: Child[][]): HTMLTableElement {
	return h(
		'table',
		{ class: 'cards' },
		h('caption', { class: 'visually-hidden' }, caption),
		h(
			'thead',
			{},
			h(
				'tr',
				{},
				headings.map((heading) => h('th', { scope: 'col' }, heading)),
			),
		),
		h(
			'tbody',
			{},
			rows.map((cells) =>
				h(
					'tr',
					{},
					cells.map((cell, i) => h('td', { 'data-label': headings[i] }, cell)),
				),
			),
		),
	);
}

export function formatTime(iso: string | null | undefined): string {
	if (!iso) return '';
	const date = new Date(iso);
	return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

export function formatBytes(bytes: number): string {
	if (bytes < 1024) return `${bytes} B`;
	if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
	return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** Calls `action` with the button disabled, so a double click does not send twice. */
export async function busy<T>(button: HTMLButtonElement, action: () => Promise<T>): Promise<T> {
	button.disabled = true;
	try {
		return await action();
	} finally {
		button.disabled = false;
	}
}

/** The page's h1; it takes focus after navigation so screen readers announce the new page. */
export function pageHeading(text: string): HTMLHeadingElement {
	document.title = `${text} · Mailroom`;
	return h('h1', { tabindex: -1 }, text);
}
