'use strict'

// Deletes finished callbacks (delivered, or failed and dead-lettered) once
// they are older than CALLBACK_RETENTION_HOURS, with their attempts. Without
// it the outbox is the ledger's largest table after a few million transfers
// (three rows of ~1 KB each per transfer), and MariaDB's work per transfer
// grows with it (docs/performance.md). The transfer's own history stays in
// transfer_state_change; the outbox only needs what might still be sent.
//
// Off the hot path: one sweep a minute, in batches of `batchSize` rows with a
// pause between them, oldest first on callback_created_at_idx. A full batch
// means more is due: the next one follows after the pause. Every replica of
// the notification handler sweeps; deleting a row twice does nothing.

const DEFAULT_INTERVAL_MS = 60000

/**
 * @param {{ repository: Pick<ReturnType<typeof import('./repository').createRepository>, 'purgeFinished'>,
 *   logger: import('pino').Logger, retentionHours: number, intervalMs?: number, batchSize?: number, pauseMs?: number,
 *   now?: () => number, onPurged?: (count: number) => void }} opts retentionHours 0 keeps everything
 */
function createRetention ({ repository, logger, retentionHours, intervalMs = DEFAULT_INTERVAL_MS, batchSize = 1000, pauseMs = 100, now = Date.now, onPurged }) {
  /** @type {NodeJS.Timeout | undefined} */
  let timer
  /** @type {Promise<void>} */
  let current = Promise.resolve()
  let stopped = false
  /** Ends the pause between batches early (on stop). */
  let wake = () => {}

  /** One sweep: batches until one is not full. @returns {Promise<number>} callbacks deleted */
  async function sweep () {
    if (!(retentionHours > 0)) return 0
    const before = new Date(now() - retentionHours * 3600000)
    let total = 0
    for (;;) {
      const deleted = await repository.purgeFinished(before, batchSize)
      total += deleted
      if (deleted && onPurged) onPurged(deleted)
      if (deleted < batchSize || stopped) return total
      await new Promise((resolve) => {
        const pause = setTimeout(resolve, pauseMs)
        wake = () => { clearTimeout(pause); resolve(undefined) }
      })
      if (stopped) return total
    }
  }

  /** @param {number} delay */
  function schedule (delay) {
    timer = setTimeout(() => {
      current = sweep()
        .then((total) => { if (total) logger.info({ deleted: total, retentionHours }, 'deleted finished callbacks past their retention') })
        .catch((err) => logger.warn({ err }, 'callback retention sweep failed; will try again'))
        .then(() => { if (!stopped) schedule(intervalMs) })
    }, delay)
  }

  return {
    sweep,
    start () {
      if (retentionHours > 0) schedule(0)
    },
    async stop () {
      stopped = true
      clearTimeout(timer)
      wake()
      await current
    }
  }
}

module.exports = { createRetention }
