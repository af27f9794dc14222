'use strict'

// Runs the handlers named in HANDLERS (or on the command line):
//   node handlers/src/main.js prepare position
//   HANDLERS=position node handlers/src/main.js
// Production runs one handler per process (one Deployment each); `npm start`
// runs all of them next to the API through startHandlers().

// First, so that mysql2 is instrumented when it loads.
const { registerTracing, shutdownTracing } = require('@switchyard/shared/tracing')
if (require.main === module) registerTracing(process.argv.length > 2 ? process.argv.slice(2).join('-') : undefined)

const { loadConfig } = require('@switchyard/shared/config')
const { createLogger } = require('@switchyard/shared/logger')
const { createLifecycle } = require('@switchyard/shared/lifecycle')
const { createRuntime } = require('@switchyard/shared/runtime')
const { exitAfterStartupFailure } = require('@switchyard/shared/startup-failure')
const { runConsumer, runnerSettings, topicName } = require('@switchyard/shared/kafka')
const { createSharedTransactions } = require('@switchyard/shared/db')
const { HANDLERS, names } = require('./registry')
const { startHealthServer } = require('./health-server')

/**
 * @param {string[]} requested
 * @returns {string[]}
 */
function resolveNames (requested) {
  const wanted = requested.includes('all') ? names() : requested
  const unknown = wanted.filter((n) => !HANDLERS[n])
  if (unknown.length) throw new Error(`unknown handler(s): ${unknown.join(', ')}; known: ${names().join(', ')}`)
  return wanted
}

/**
 * Starts handlers in this process, each registered with the lifecycle so
 * shutdown lets the batch in flight finish before anything closes.
 * @param {Awaited<ReturnType<typeof createRuntime>>} runtime
 * @param {string[]} requested
 */
async function startHandlers (runtime, requested) {
  const started = []
  const { config } = runtime
  // A handler applies messages to the ledger: against a schema that lacks a
  // migration they would fail and be dead-lettered. A database that did not
  // answer at start is checked when it does, before the first message.
  await runtime.schemaChecked
  // The consumers started here commit together what is ready together
  // (shared-transactions.js); the naive baseline keeps one commit per message.
  const shared = config.DB_SHARED_TRANSACTIONS > 0 && config.KAFKA_MAX_BATCH_SIZE > 1
    ? createSharedTransactions(runtime.db, {
      maxOpen: config.DB_SHARED_TRANSACTIONS,
      lingerMs: config.DB_SHARED_LINGER_MS,
      lingerShare: config.DB_SHARED_LINGER_SHARE,
      busyRecords: config.DB_SHARED_BUSY_RECORDS,
      overlapCommit: config.DB_SHARED_OVERLAP_COMMIT,
      onGroup: runtime.metrics.sharedTransactions.onGroup
    })
    : null
  // What the stages here commit for the notification topic reaches this
  // process's notification handler at once, while it is its group's only
  // member and so will consume every one of those records itself: their
  // callbacks are tried before the records are produced, and adopted by them
  // when they arrive (CALLBACK_EARLY, notification/dispatcher.js).
  /** @type {{ topic: string, deliver: (messages: import('./notification/message').WireMessage[]) => void, owns: () => boolean } | null} */
  let early = null
  /** @param {import('./notification/message').WireMessage[]} messages */
  const onCommitted = (messages) => {
    if (!early || !early.owns()) return
    const topic = early.topic
    const mine = messages.filter((m) => m.topic === topic)
    if (mine.length) early.deliver(mine)
  }
  for (const name of resolveNames(requested)) {
    const logger = runtime.logger.child({ handler: name })
    const spec = await HANDLERS[name]().create({ ...runtime, logger })
    if (spec.handleBatch) {
      // A consumer stage is the group `<client id>-<name>` on the topic of its name.
      const groupId = `${runtime.config.KAFKA_CLIENT_ID}-${name}`
      const topics = [topicName(runtime.config, /** @type {keyof typeof import('@switchyard/shared/kafka').TOPICS} */ (name))]
      const runner = await runConsumer({
        kafka: runtime.kafka,
        db: runtime.db,
        producer: runtime.producer,
        logger,
        groupId,
        stage: name,
        observer: runtime.observer,
        topics,
        handleBatch: spec.handleBatch,
        prefetch: spec.prefetch,
        transact: shared ? shared.run : undefined,
        // A stage whose work waits on something other than the database (the
        // notification handler's first delivery attempts) does its reads and
        // its waiting before its transaction opens: otherwise it would hold
        // every other stage's shared commit for as long.
        readsFirst: Boolean(spec.waitsOutsideDb),
        onCommitted,
        settings: runnerSettings(config)
      })
      if (spec.early) early = { ...spec.early, owns: runner.ownsAll }
      runtime.lifecycle.add(`${name} consumer`, () => runner.stop())
      runtime.metrics.watchGroup(groupId, topics)
      runtime.metrics.watchKafka(name, runner.consumer)
    } else {
      await spec.start()
      runtime.lifecycle.add(name, () => spec.stop())
    }
    started.push(name)
  }
  return started
}

async function main () {
  const config = loadConfig()
  const logger = createLogger(config, { name: 'handlers' })
  const requested = process.argv.length > 2 ? process.argv.slice(2) : [...config.HANDLERS]
  resolveNames(requested)
  const lifecycle = createLifecycle({ logger, timeoutMs: config.SHUTDOWN_TIMEOUT_MS })
  lifecycle.installSignalHandlers()
  // Registered first, so it flushes last.
  lifecycle.add('tracing', shutdownTracing)
  const runtime = await createRuntime({ config, logger, lifecycle })
  // Probes and metrics answer from the start, before the handlers consume:
  // while the database does not answer yet, or the prepare handler loads its
  // duplicate filter, /livez says the process runs and /health says it is not
  // ready, naming the handlers as DOWN until every one of them consumes.
  let running = false
  const health = async () => {
    const report = await runtime.health()
    return running ? report : { ...report, status: 'DOWN', services: [...report.services, { name: 'handlers', status: 'DOWN' }] }
  }
  const server = await startHealthServer({ port: config.HEALTH_PORT, host: config.API_HOST, health, metrics: runtime.metrics })
  // A scraper's keep-alive connection would hold close() for its timeout.
  lifecycle.add('health server', () => new Promise((resolve) => { server.close(() => resolve()); server.closeAllConnections() }))
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : config.HEALTH_PORT
  const healthUrl = `http://${config.API_HOST}:${port}/health`
  logger.info({ healthUrl }, 'health server listening; handlers starting')
  const started = await startHandlers(runtime, requested)
  running = true
  logger.info({ handlers: started, health: healthUrl }, 'handlers running')
}

if (require.main === module) {
  main().catch((err) => exitAfterStartupFailure(err, 'handlers'))
}

module.exports = { startHandlers }
