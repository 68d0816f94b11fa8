# Mailroom as a container: `docker build -t mailroom .` then
#   docker run -d --name mailroom -p 2525:2525 -p 3000:3000 -v mailroom-data:/data mailroom
# The first start of an empty /data prints the admin account's API key to the log (docker logs mailroom), or takes it from
# MAILROOM_ADMIN_KEY / MAILROOM_ADMIN_KEY_FILE. Every setting is a MAILROOM_* variable (docs/configuration.md); how to run it
# with n8n, on port 25 and with TLS is in docs/containers.md.
# The build stages need Node with python3, make and g++ (the full image); the image run is the slim one.
ARG BUILD_IMAGE=node:24-bookworm
ARG RUN_IMAGE=node:24-bookworm-slim

# The production dependencies of the server package alone, from the lockfile. better-sqlite3 is native: its package carries
# binaries for glibc Linux on x64 and arm64, and compiles elsewhere (python3, make and g++ are in this image); what it needs
# only to compile, and the other systems' binaries, are left out.
FROM ${BUILD_IMAGE} AS dependencies
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/mailroom-server/package.json packages/mailroom-server/
RUN --mount=type=cache,target=/root/.npm \
	npm ci --omit=dev --omit=peer --workspace packages/mailroom-server --no-audit --no-fund --loglevel=error \
	&& cd node_modules/better-sqlite3 \
	&& rm -rf deps src prebuilds/darwin-* prebuilds/win32-* prebuilds/linuxmusl-*

# The TypeScript compiled, and the dashboard's assets, as `npm run build` makes them (no install scripts: nothing here runs
# a native module).
FROM ${BUILD_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
COPY packages/mailroom-server/package.json packages/mailroom-server/
RUN --mount=type=cache,target=/root/.npm npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
COPY tsconfig.json tsconfig.server.json gulpfile.js README.md ./
COPY server server
RUN npx tsc -p tsconfig.server.json \
	&& npx gulp --silent build:assets \
	&& find packages/mailroom-server/dist -name '*.d.ts' -delete \
	&& chmod 755 packages/mailroom-server/dist/cli.js

FROM ${RUN_IMAGE}
# Inside a container the listeners bind every interface (outside, Mailroom binds 127.0.0.1 by default); the data folder is
# the volume. A stop finishes within Docker's default 10 s grace: 8 s for SMTP transactions in progress, then the rest.
ENV NODE_ENV=production \
	MAILROOM_DATA_DIR=/data \
	MAILROOM_SMTP_HOST=0.0.0.0 \
	MAILROOM_SMTP_PORT=2525 \
	MAILROOM_HTTP_HOST=0.0.0.0 \
	MAILROOM_HTTP_PORT=3000 \
	MAILROOM_SHUTDOWN_TIMEOUT=8
WORKDIR /app
COPY --from=dependencies /app/node_modules node_modules
COPY --from=build /src/packages/mailroom-server/package.json /src/packages/mailroom-server/README.md packages/mailroom-server/
COPY --from=build /src/packages/mailroom-server/dist packages/mailroom-server/dist
# `mailroom` on PATH, so `docker exec mailroom mailroom keys create admin` works too; /data owned by the user that runs it
# (a new named volume takes this owner; a bind-mounted folder must belong to uid 1000).
RUN ln -s /app/packages/mailroom-server/dist/cli.js /usr/local/bin/mailroom \
	&& mkdir /data \
	&& chown node:node /data
USER node
VOLUME /data
EXPOSE 2525 3000
# Ready: listening, store and disk fine (GET /readyz). Node itself asks: the slim image has no curl.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
	CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.MAILROOM_HTTP_PORT || 3000) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["mailroom"]
CMD ["serve"]
