import { h } from '../dom.js';

/** A key shown once, right after it was made: the server keeps only its hash. */
export function newKeyPanel(title: string, key: string, id: string): Node {
	return h(
		'div',
		{ class: 'panel secret' },
		h('p', {}, h('strong', {}, `${title}: copy it now, it is shown only this once.`)),
		h('code', { id }, key),
	);
}
