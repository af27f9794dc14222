'use strict'

// The timeout handler: finds transfers past their expiration within about
// TIMEOUT_INTERVAL_MS and sends an `abort` (reason `expired`) to each payer's
// position partition, where the position handler expires it exactly once
// (docs/transfers.md "Expiry"). It also sends again the commit or abort of a
// transfer whose command never reached the position handler (dead-lettered):
// without it the payer's funds stayed reserved and neither party heard the
// end (docs/transfers.md "Recovery"). Correct with any number of replicas.

const crypto = require('node:crypto')
const { topicName, toWire } = require('@switchyard/shared/kafka')
const { claimExpired, claimedTransfers, claimStuck, holdSentClaim } = require('./repository')
const { createPoller } = require('../common/poller')

/**
 * The position command that moves a stuck transfer on, as the fulfil
 * handler sent it but for the participant's own request (gone with the lost
 * message): the payer then hears the stored outcome from the hub, and an
 * abort tells the payee too.
 * @param {{ transfer_id: string, state: string, payer_account_id: number, payee_account_id: number, amount: string, currency: string }} t
 */
function redriveCommand (t) {
  const commit = t.state === 'RECEIVED_FULFIL'
  const accountId = commit ? t.payee_account_id : t.payer_account_id
  return {
    key: String(accountId),
    value: commit
      ? { action: 'commit', transferId: t.transfer_id, accountId, amount: t.amount, currency: t.currency }
      : { action: 'abort', reason: 'recovered', transferId: t.transfer_id, accountId, amount: t.amount, currency: t.currency }
  }
}

/**
 * @param {{ config: import('@switchyard/shared/config').Config, db: import('knex').Knex, logger: import('pino').Logger,
 *   producer: ReturnType<typeof import('@switchyard/shared/kafka').createProducer> }} runtime
 */
function create ({ config, db, logger, producer }) {
  const topic = topicName(config, 'position')

  /** One sweep; returns how many transfers it expired. */
  async function sweep () {
    const claim = crypto.randomUUID()
    const { claimed, ids } = await claimExpired(db, { claim, limit: config.TIMEOUT_BATCH_SIZE, leaseMs: config.TIMEOUT_LEASE_MS })
    if (!claimed) return 0
    const due = await claimedTransfers(db, claim, ids)
    await producer.send(due.map((t) => toWire({
      topic,
      key: String(t.payer_account_id),
      value: { action: 'abort', reason: 'expired', transferId: t.transfer_id, accountId: t.payer_account_id, amount: t.amount, currency: t.currency }
    })))
    await holdSentClaim(db, claim, ids, { holdMs: config.TIMEOUT_REDRIVE_AFTER_MS, leaseMs: config.TIMEOUT_LEASE_MS })
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

  /** One sweep for transfers whose commit or abort was lost; returns how many it sent again. */
  async function redrive () {
    const claim = crypto.randomUUID()
    const { claimed, ids } = await claimStuck(db, { claim, limit: config.TIMEOUT_BATCH_SIZE, afterMs: config.TIMEOUT_REDRIVE_AFTER_MS })
    if (!claimed) return 0
    const stuck = await claimedTransfers(db, claim, ids)
    await producer.send(stuck.map((t) => toWire({ topic, ...redriveCommand(t) })))
    // Rare, and each one means a dead letter an operator should read.
    logger.warn({ transfers: stuck.map((t) => t.transfer_id) }, 'sent the lost commit or abort of transfers again')
    return stuck.length
  }

  const redriveEveryMs = Math.max(config.TIMEOUT_INTERVAL_MS, Math.floor(config.TIMEOUT_REDRIVE_AFTER_MS / 4))
  const pollers = [
    createPoller({ tick, logger, what: 'timeout sweep', errorDelayMs: Math.min(config.TIMEOUT_INTERVAL_MS * 4, 5000) }),
    createPoller({
      tick: async () => ((await redrive()) >= config.TIMEOUT_BATCH_SIZE ? 0 : redriveEveryMs),
      logger,
      what: 'lost command sweep',
      errorDelayMs: Math.min(redriveEveryMs, 5000)
    })
  ]
  return {
    async start () { for (const p of pollers) p.start() },
    async stop () { await Promise.all(pollers.map((p) => p.stop())) }
  }
}

module.exports = { create, redriveCommand }
