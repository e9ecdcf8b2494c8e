# The service image: one build, every role; ROLES picks what a container runs.
# test/ops/image.test.ts does what this file does, outside Docker: it copies what the final stage's COPY lines copy.
FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts ./scripts
# Compiles src/ and scripts/ into dist/ and copies src/'s data files (common-passwords.txt) next to the code.
RUN npm run build
# The admin console (served at /admin by the back-office port).
COPY console ./console
RUN npx vite build --config console/vite.config.ts

FROM node:20-slim
ENV NODE_ENV=production DATA_DIR=/data
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY --from=build /app/console/dist ./console/dist
# /app stays root-owned (read-only to the service); only the data volume (generated keys, embedded PostgreSQL) is writable.
RUN mkdir -p /data/keys && chown -R node:node /data && chmod 700 /data/keys
VOLUME ["/data"]
USER node
EXPOSE 3000 3001 3002
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 CMD ["node", "dist/scripts/healthcheck.js"]
# Tools in the same image: node dist/scripts/ledger.js verify | node dist/scripts/projections.js status | node dist/scripts/keys.js
CMD ["node", "dist/src/main.js"]
