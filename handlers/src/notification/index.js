'use strict'

// The notification handler: a consumer that tries callbacks at once and
// stores them as their first attempt left them (handle.js), a dispatcher that
// delivers them with retries (dispatcher.js), and the recovery loop that
// renews leases and takes over other replicas' leftovers.
//
// Shutdown order. startHandlers() calls create() and only then starts the
// consumer and registers it with the lifecycle; create() registers the
// dispatcher first. The lifecycle closes newest first, so the consumer stops
// (its last batch committed and handed over) before the dispatcher drains,
// and the producer and database — registered by createRuntime() before both —
// are still open while the dispatcher dead-letters and flushes.

const os = require('node:os')
const crypto = require('node:crypto')
const { topicName, deadLetterTopic } = require('@switchyard/shared/kafka')
const { createRepository } = require('./repository')
const { createEndpointCache } = require('./endpoints')
const { createHttpClient } = require('./deliver')
const { createThreadedHttpClient } = require('./http-thread')
const { createWriteBuffer } = require('./write-buffer')
const { createDispatcher } = require('./dispatcher')
const { createRecovery } = require('./recovery')
const { createRetention } = require('./retention')
const { createHandleBatch, notificationPrefetch, earlyJobs } = require('./handle')

/** Who holds a claim: unique per process, readable by an operator (fits callback.claimed_by). */
const createInstanceId = () => `${os.hostname().slice(0, 40)}-${process.pid}-${crypto.randomBytes(4).toString('hex')}`

/**
 * @param {{ config: import('@switchyard/shared/config').Config, logger: import('pino').Logger, db: import('knex').Knex,
 *   producer: { send: (messages: import('./message').WireMessage[]) => Promise<void> },
 *   lifecycle: { add: (name: string, close: () => Promise<void> | void) => unknown },
 *   metrics?: { callbacks: { attempt: (outcome: string, seconds: number) => void, failed: () => void, purged: (count: number) => void } } }} runtime
 */
function create (runtime) {
  const { config, logger, db, producer, lifecycle } = runtime
  const topic = topicName(config, 'notification')
  const dlq = deadLetterTopic(topic)
  const instanceId = createInstanceId()
  const log = logger.child({ instance: instanceId })

  const repository = createRepository(db, { instanceId, leaseMs: config.CALLBACK_LEASE_MS })
  const endpoints = createEndpointCache({ load: repository.loadEndpoints })
  const client = { timeoutMs: config.CALLBACK_TIMEOUT_MS, kind: config.CALLBACK_HTTP_CLIENT, pipelining: config.CALLBACK_PIPELINING }
  const http = config.CALLBACK_THREAD ? createThreadedHttpClient(client) : createHttpClient(client)
  const writer = createWriteBuffer({ write: repository.writeOutcomes, logger: log })
  const dispatcher = createDispatcher({ config, logger: log, endpoints, http, writer, producer, deadLetterTopic: dlq, callbacks: runtime.metrics?.callbacks })
  const recovery = createRecovery({
    repository,
    dispatcher,
    logger: log,
    intervalMs: Math.min(5000, Math.floor(config.CALLBACK_LEASE_MS / 4))
  })

  const retention = createRetention({
    repository,
    logger: log,
    retentionHours: config.CALLBACK_RETENTION_HOURS,
    onPurged: (n) => runtime.metrics?.callbacks.purged(n)
  })

  // In-flight requests get at most one callback timeout, and never more than
  // a third of the process's shutdown budget.
  const drainMs = Math.min(config.CALLBACK_TIMEOUT_MS, Math.floor(config.SHUTDOWN_TIMEOUT_MS / 3))
  lifecycle.add('notification dispatcher', async () => {
    await retention.stop()
    await recovery.stop()
    await dispatcher.stop(drainMs)
    await writer.close()
    await repository.releaseClaims().catch((err) => log.warn({ err }, 'could not release callback claims; they lapse with the lease'))
    await http.close()
  })
  recovery.start()
  retention.start()

  return {
    handleBatch: createHandleBatch({ repository, dispatcher, deadLetterTopic: dlq, inlineWaitMs: config.CALLBACK_INLINE_WAIT_MS }),
    prefetch: notificationPrefetch,
    // It waits for HTTP (CALLBACK_INLINE_WAIT_MS): reads and delivers
    // before its transaction opens (RunnerOptions.readsFirst).
    waitsOutsideDb: true,
    // The notifications the other stages of this process commit, handed
    // over before they are produced (CALLBACK_EARLY, main.js).
    early: config.CALLBACK_EARLY
      ? { topic, deliver: (/** @type {import('./message').WireMessage[]} */ messages) => dispatcher.deliverEarly(earlyJobs(messages)) }
      : undefined
  }
}

module.exports = { create }
