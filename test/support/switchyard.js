'use strict'

// A whole Switchyard in the test process — the API, the admin API and every
// handler on the real local stack — with its own topics and consumer groups
// (a unique prefix), plus the calls a participant and an operator make.

const pino = require('pino')
const { testConfig, unique } = require('./config')
const { failPendingCallbacks } = require('./callbacks')
const { createLifecycle } = require('../../shared/src/lifecycle')
const { createRuntime } = require('../../shared/src/runtime')
const { createDb } = require('../../shared/src/db')
const { createTopics } = require('../../scripts/stack/index')
const { startApi } = require('../../api-adapter/src/server')
const { startHandlers } = require('../../handlers/src/main')
const { createClient, prepareBody } = require('../../perf/src/load/client')

/**
 * @param {Record<string, string>} [overrides] configuration
 * @param {{ handlers?: string[] }} [opts] which handlers to start (all by default)
 */
async function startSwitchyard (overrides = {}, { handlers = ['all'] } = {}) {
  const id = unique('sy')
  const config = testConfig({
    KAFKA_TOPIC_PREFIX: `${id}.`,
    KAFKA_CLIENT_ID: id,
    KAFKA_PARTITIONS: '3',
    API_PORT: '0',
    ADMIN_PORT: '0',
    CALLBACK_BACKOFF_MS: '50',
    CALLBACK_MAX_BACKOFF_MS: '500',
    TIMEOUT_INTERVAL_MS: '100',
    ...overrides
  })
  await createTopics(config)
  const logger = pino({ level: config.LOG_LEVEL })
  const lifecycle = createLifecycle({ logger, timeoutMs: 10000, exit: () => {} })
  const runtime = await createRuntime({ config, logger, lifecycle })
  await startHandlers(runtime, handlers)
  const { url, adminUrl } = await startApi(runtime)

  const client = createClient({ apiUrl: url, adminUrl, hubName: config.HUB_NAME })

  return {
    config,
    db: runtime.db,
    api: () => url,
    ...client,
    /** Starts more handlers in this Switchyard. @param {string[]} names */
    startHandlers: (names) => startHandlers(runtime, names),
    async stop () {
      await lifecycle.shutdown('test done')
      // Its callbacks (their ids start with its topic prefix) that the
      // shutdown released still pending.
      const db = createDb(config)
      try {
        await failPendingCallbacks(db, 'callback_id', `${id}.%`)
      } finally {
        await db.destroy()
      }
    }
  }
}

module.exports = { startSwitchyard, prepareBody }
