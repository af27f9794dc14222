'use strict'

// The timeout handler: finds transfers past their expiration within about
// TIMEOUT_INTERVAL_MS and sends an `abort` (reason `expired`) to each payer's
// position partition, where the position handler expires it exactly once
// (docs/transfers.md "Expiry"). Correct with any number of replicas.

const crypto = require('node:crypto')
const { topicName, toWire } = require('@switchyard/shared/kafka')
const { claimExpired, claimedTransfers } = require('./repository')

/**
 * @param {{ config: import('@switchyard/shared/config').Config, db: import('knex').Knex, logger: import('pino').Logger,
 *   producer: ReturnType<typeof import('@switchyard/shared/kafka').createProducer> }} runtime
 */
function create ({ config, db, logger, producer }) {
  const topic = topicName(config, 'position')
  let timer
  let running = false
  /** @type {Promise<void> | undefined} */
  let current

  /** One sweep; returns how many transfers it expired. */
  async function sweep () {
    const claim = crypto.randomUUID()
    const claimed = await claimExpired(db, { claim, limit: config.TIMEOUT_BATCH_SIZE, leaseMs: config.TIMEOUT_LEASE_MS })
    if (!claimed) return 0
    const due = await claimedTransfers(db, claim)
    await producer.send(due.map((t) => toWire({
      topic,
      key: String(t.payer_account_id),
      value: { action: 'abort', reason: 'expired', transferId: t.transfer_id, accountId: t.payer_account_id, amount: t.amount, currency: t.currency }
    })))
    return due.length
  }

  async function loop () {
    if (!running) return
    let delay = config.TIMEOUT_INTERVAL_MS
    try {
      // Untraced: outside a consumer chunk nothing is (shared/src/tracing/sync-context.js).
      const n = await sweep()
      // A full sweep means more are due: go again at once.
      if (n >= config.TIMEOUT_BATCH_SIZE) delay = 0
      if (n) logger.debug({ expired: n }, 'expired transfers')
    } catch (err) {
      logger.warn({ err }, 'timeout sweep failed; retrying')
      delay = Math.min(config.TIMEOUT_INTERVAL_MS * 4, 5000)
    }
    if (running) timer = setTimeout(() => { current = loop() }, delay)
  }

  return {
    async start () {
      running = true
      current = loop()
    },
    async stop () {
      running = false
      clearTimeout(timer)
      await current
    }
  }
}

module.exports = { create }
