/**
 * The address without its plus tag: `name+tag@domain` → `name@domain` (the tag is everything from the first `+`). An
 * address whose local part starts with `+` has no name before the tag, so it is its own address.
 */
export function withoutPlusTag(address: string): string {
	const at = address.lastIndexOf('@');
	const plus = address.indexOf('+');
	return plus > 0 && plus < at ? address.slice(0, plus) + address.slice(at) : address;
}
