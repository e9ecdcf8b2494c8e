# The service image: one build, every role; ROLES picks what a container runs.
FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build
# The admin console (served at /admin by the back-office port).
COPY console ./console
RUN npx vite build --config console/vite.config.ts

FROM node:20-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY --from=build /app/console/dist ./console/dist
USER node
EXPOSE 3000 3001 3002
CMD ["node", "dist/main.js"]
