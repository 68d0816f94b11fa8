import { h } from './dom.js';

/** A tab: its label, and what to show in its panel, drawn the first time it is chosen (sources can be large). */
export interface Tab {
	label: string;
	render: () => Node;
}

/**
 * WAI-ARIA tabs: a tablist whose buttons show one panel each. Left/Right, Home and End move between tabs, as screen reader
 * users expect; only the chosen tab is in the Tab order.
 */
export function tabs(name: string, list: Tab[], first = 0): HTMLElement {
	const id = `tabs-${name}`;
	const buttons = list.map((tab, i) =>
		h('button', { type: 'button', role: 'tab', id: `${id}-${i}`, 'aria-controls': `${id}-panel-${i}`, class: 'tab' }, tab.label),
	);
	const panels = list.map((_, i) =>
		h('div', { role: 'tabpanel', id: `${id}-panel-${i}`, 'aria-labelledby': `${id}-${i}`, tabindex: 0, hidden: true }),
	);
	const choose = (index: number, focus: boolean) => {
		buttons.forEach((button, i) => {
			button.setAttribute('aria-selected', String(i === index));
			button.tabIndex = i === index ? 0 : -1;
			panels[i].hidden = i !== index;
		});
		if (panels[index].childElementCount === 0) panels[index].append(list[index].render());
		if (focus) buttons[index].focus();
	};
	buttons.forEach((button, i) => button.addEventListener('click', () => choose(i, false)));
	const tablist = h('div', { role: 'tablist', 'aria-label': name, class: 'tablist' }, buttons);
	tablist.addEventListener('keydown', (event) => {
		const current = buttons.findIndex((button) => button.getAttribute('aria-selected') === 'true');
		const moves: Record<string, number> = { ArrowRight: current + 1, ArrowLeft: current - 1, Home: 0, End: list.length - 1 };
		if (!(event.key in moves)) return;
		event.preventDefault();
		choose((moves[event.key] + list.length) % list.length, true);
	});
	choose(first, false);
	return h('div', { class: 'tabs' }, tablist, panels);
}
