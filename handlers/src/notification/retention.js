'use strict'

// Deletes finished callbacks (delivered, or failed and dead-lettered) once
// they are older than CALLBACK_RETENTION_HOURS, with their attempts. Without
// it the outbox is the ledger's largest table after a few million transfers
// (three rows of ~1 KB each per transfer), and MariaDB's work per transfer
// grows with it (docs/performance.md). The transfer's own history stays in
// transfer_state_change; the outbox only needs what might still be sent.
//
// Off the hot path: one batch of `batchSize` rows a minute, oldest first on
// callback_created_at_idx; a full batch means more is due, and the next one
// follows after a short pause. Every replica of the notification handler
// sweeps; deleting a row twice does nothing.

const { createPoller } = require('../common/poller')

const DEFAULT_INTERVAL_MS = 60000

/**
 * @param {{ repository: Pick<ReturnType<typeof import('./repository').createRepository>, 'purgeFinished'>,
 *   logger: import('pino').Logger, retentionHours: number, intervalMs?: number, batchSize?: number, pauseMs?: number,
 *   now?: () => number, onPurged?: (count: number) => void }} opts retentionHours 0 keeps everything
 */
function createRetention ({ repository, logger, retentionHours, intervalMs = DEFAULT_INTERVAL_MS, batchSize = 1000, pauseMs = 100, now = Date.now, onPurged }) {
  /** Deletes one batch that is due. @returns {Promise<number>} callbacks deleted */
  async function purgeBatch () {
    const deleted = await repository.purgeFinished(new Date(now() - retentionHours * 3600000), batchSize)
    if (deleted) {
      logger.debug({ deleted, retentionHours }, 'deleted finished callbacks past their retention')
      if (onPurged) onPurged(deleted)
    }
    return deleted
  }

  const poller = createPoller({
    tick: async () => ((await purgeBatch()) === batchSize ? pauseMs : intervalMs),
    logger,
    what: 'callback retention sweep',
    errorDelayMs: intervalMs
  })

  return {
    /** Everything due now, batch after batch. @returns {Promise<number>} callbacks deleted */
    async sweep () {
      if (!(retentionHours > 0)) return 0
      let total = 0
      for (;;) {
        const deleted = await purgeBatch()
        total += deleted
        if (deleted < batchSize) return total
      }
    },
    start () {
      if (retentionHours > 0) poller.start()
    },
    stop: poller.stop
  }
}

module.exports = { createRetention }
