import type { TargetOwner, TargetPolicy } from '../webhooks/target-policy';
import { badRequest } from './errors';

/**
 * Refuses (400) webhook URLs of a request body that the SSRF policy would never deliver to for `owner`, naming the field,
 * so the mistake shows when the URL is set rather than as refused deliveries later. `urls` maps body fields to URLs
 * (null or undefined: not set by this request).
 */
export async function assertDeliverable(
	policy: TargetPolicy,
	owner: TargetOwner,
	urls: Record<string, string | null | undefined>,
): Promise<void> {
	for (const [field, url] of Object.entries(urls)) {
		if (!url) continue;
		const refusal = await policy.refusal(url, owner);
		if (refusal) throw badRequest(`${field} would never be delivered: ${refusal}`, field);
	}
}
