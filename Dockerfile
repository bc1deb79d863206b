# The web console: built once with the development dependencies; only its static files go on.
FROM node:20-bookworm-slim AS console
WORKDIR /app
COPY package.json package-lock.json ./
COPY apps/console/package.json apps/console/
COPY libs/field-validation/package.json libs/field-validation/
RUN npm ci --no-audit --no-fund
COPY tsconfig.base.json ./
COPY apps/console apps/console
COPY libs/field-validation libs/field-validation
RUN node node_modules/vite/bin/vite.js build --config apps/console/vite.config.mts

# The apps' bundles: each app and the libs it uses in one file that plain node runs (decision 126).
FROM node:20-bookworm-slim AS apps
WORKDIR /app
COPY package.json package-lock.json tsconfig.base.json ./
COPY apps apps
COPY libs libs
COPY tools/scripts tools/scripts
RUN npm ci --omit=dev --no-audit --no-fund && npm run build:apps

# One image for the three apps; docker-compose picks the entry point. The api serves the console.
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
COPY apps/api/package.json apps/api/
COPY apps/webhook-worker/package.json apps/webhook-worker/
COPY apps/cron-runner/package.json apps/cron-runner/
COPY apps/console/package.json apps/console/
COPY libs/platform/package.json libs/platform/
COPY libs/events/package.json libs/events/
COPY libs/authz/package.json libs/authz/
COPY libs/notifications/package.json libs/notifications/
COPY libs/data-models/package.json libs/data-models/
COPY libs/field-validation/package.json libs/field-validation/
COPY libs/runtime/package.json libs/runtime/
RUN npm ci --omit=dev --no-audit --no-fund
COPY tsconfig.base.json ./
COPY apps apps
COPY libs libs
COPY --from=console /app/apps/console/dist apps/console/dist
COPY --from=apps /app/apps/api/dist apps/api/dist
COPY --from=apps /app/apps/webhook-worker/dist apps/webhook-worker/dist
COPY --from=apps /app/apps/cron-runner/dist apps/cron-runner/dist
# migrate and bootstrap run from here (`docker compose exec api npm run bootstrap -- ...`); tsx is a runtime dependency.
COPY tools/scripts tools/scripts
USER node
CMD ["node", "--enable-source-maps", "apps/api/dist/main.js"]
