'use strict'

// The timeout handler: finds transfers past their expiration within about
// TIMEOUT_INTERVAL_MS and sends an `abort` (reason `expired`) to each payer's
// position partition, where the position handler expires it exactly once
// (docs/transfers.md "Expiry"). Correct with any number of replicas.

const crypto = require('node:crypto')
const { topicName, toWire } = require('@switchyard/shared/kafka')
const { claimExpired, claimedTransfers } = require('./repository')
const { createPoller } = require('../common/poller')

/**
 * @param {{ config: import('@switchyard/shared/config').Config, db: import('knex').Knex, logger: import('pino').Logger,
 *   producer: ReturnType<typeof import('@switchyard/shared/kafka').createProducer> }} runtime
 */
function create ({ config, db, logger, producer }) {
  const topic = topicName(config, 'position')

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

  /** @returns {Promise<number>} when to sweep again: at once after a full sweep */
  async function tick () {
    // Untraced: outside a consumer chunk nothing is (shared/src/tracing/sync-context.js).
    const n = await sweep()
    if (n) logger.debug({ expired: n }, 'expired transfers')
    // A full sweep means more are due: go again at once.
    return n >= config.TIMEOUT_BATCH_SIZE ? 0 : config.TIMEOUT_INTERVAL_MS
  }

  const poller = createPoller({ tick, logger, what: 'timeout sweep', errorDelayMs: Math.min(config.TIMEOUT_INTERVAL_MS * 4, 5000) })
  return {
    async start () { poller.start() },
    stop: poller.stop
  }
}

module.exports = { create }
