/**
 * Records rendered as JSON by the database (each engine's recordJsonHead: the record up to `"spam":`) then their spam
 * scores, as a JSON array. The spam score is left to JavaScript, which prints numbers as the response serializer does.
 */
export function recordsJson(rows: [head: string, spam: number][]): string {
	let json = '[';
	for (let i = 0; i < rows.length; i++) json += `${i === 0 ? '' : ','}${rows[i][0]}${rows[i][1]}}`;
	return `${json}]`;
}
