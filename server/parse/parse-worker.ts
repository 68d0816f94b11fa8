// Worker-thread entry: parsing is CPU-bound, so it runs here, off the SMTP event loop.
import { parseMessage } from './parse-message';

export default function parse(raw: Uint8Array) {
	return parseMessage(raw);
}
