import { AjvCompiler } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type ValidatorFactory = ReturnType<typeof AjvCompiler>;
type SerializerFactory = ReturnType<typeof SerializerSelector>;

/** A validator as Fastify calls it: the data (and, for Ajv's own functions, where it sits), its errors after a failure. */
interface Validator {
	(data: unknown, context?: unknown): unknown;
	errors?: unknown;
}

/**
 * Fastify's compilers (the ones it uses itself: Ajv for requests, fast-json-stringify for responses), each route's
 * validator and serializer compiled when it is first used rather than all at the start. Compiling the ~200 of them took
 * about 40% of a server's start (0.7 s of 1.6 s on the development machine), most for requests and answers a given server
 * never sees. Ajv itself is made with the first validator.
 */
export const lazyCompilers = () => ({ buildValidator: lazyValidators(), buildSerializer: lazySerializers() });

function lazyValidators(): ValidatorFactory {
	const eager = AjvCompiler();
	return ((externalSchemas: unknown, options: unknown) => {
		let compiler: ((route: unknown) => Validator) | undefined;
		return (route: unknown) => {
			let validate: Validator | undefined;
			const lazy: Validator = (data, context) => {
				compiler ??= (eager as (schemas: unknown, options: unknown) => (route: unknown) => Validator)(externalSchemas, options);
				validate ??= compiler(route);
				const valid = validate(data, context);
				lazy.errors = validate.errors;
				return valid;
			};
			return lazy;
		};
	}) as unknown as ValidatorFactory;
}

function lazySerializers(): SerializerFactory {
	const eager = SerializerSelector();
	return (externalSchemas, options) => {
		const compile = eager(externalSchemas, options);
		return (route) => {
			let serialize: ((doc: unknown) => string) | undefined;
			return (doc) => (serialize ??= compile(route))(doc);
		};
	};
}
