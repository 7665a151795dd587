# One image for every app; the command picks the app (see docker-compose.yml):
#   docker run IMAGE                                        → the Agent API (apps/api)
#   docker run IMAGE node dist/apps/indexer/src/main.js     → the indexer, likewise projector, notifier, relay, devnet
#   docker run IMAGE node dist/apps/ops/src/main.js projections status
# Built and run here only as `npm run build` + `node dist/…` (no Docker engine on our machines; test/build-output
# starts each app from that output).

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY apps apps
COPY libs libs
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:24-bookworm-slim AS run
ENV NODE_ENV=production DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
# The embedded stores and key files live in DATA_DIR; the apps run as the image's unprivileged `node` user.
RUN mkdir -p /data && chown node:node /data
VOLUME /data
USER node
EXPOSE 3000
CMD ["node", "dist/apps/api/src/main.js"]
