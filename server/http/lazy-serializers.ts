import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;

/**
 * Fastify's response serializers (fast-json-stringify, the compiler Fastify uses itself), each compiled when its route
 * first answers with its status rather than all at the start: compiling the ~100 of them took about a quarter of a
 * server's start (0.6 s), most of them for answers a given server never gives.
 */
export function lazySerializers(): SerializerFactory {
	const eager = SerializerSelector();
	return (externalSchemas, options) => {
		const compile = eager(externalSchemas, options);
		return (route) => {
			let serialize: ((doc: unknown) => string) | undefined;
			return (doc) => (serialize ??= compile(route))(doc);
		};
	};
}
