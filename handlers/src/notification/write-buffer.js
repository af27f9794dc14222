'use strict'

// Write-behind for delivery outcomes: attempts and callback state changes are
// buffered and written every `flushMs` or every `maxRows` rows, as one
// transaction with two multi-row statements — never a round trip per attempt.
// Several changes to one callback within a flush collapse into the latest.
// A failed write keeps its rows and is retried; a crash loses at most one
// buffer, which means a callback may be delivered again after recovery
// (callbacks are at-least-once, as in FSPIOP, where they are idempotent PUTs).

const MAX_ROWS_PER_WRITE = 1000

/**
 * @typedef {{ callbackId: string, attempt: number, url: string | null, statusCode: number | null,
 *   error: string | null, durationMs: number, at: Date }} AttemptRow
 * @typedef {{ callbackId: string, status: 'PENDING' | 'DELIVERED' | 'FAILED', attempts: number,
 *   lastError: string | null, nextAttemptAt: Date | null, deliveredAt: Date | null }} UpdateRow
 */

/**
 * @param {{ write: (batch: { attempts: AttemptRow[], updates: UpdateRow[] }) => Promise<void>,
 *   logger: import('pino').Logger, flushMs?: number, maxRows?: number, retryMs?: number }} opts
 */
function createWriteBuffer ({ write, logger, flushMs = 20, maxRows = 200, retryMs = 500 }) {
  /** @type {AttemptRow[]} */
  let attempts = []
  /** @type {Map<string, UpdateRow>} */
  const updates = new Map()
  /** @type {NodeJS.Timeout | null} */
  let timer = null
  /** @type {Promise<boolean> | null} */
  let flushing = null
  let failing = false

  const size = () => attempts.length + updates.size

  /** @param {number} ms */
  function scheduleFlush (ms) {
    if (timer) {
      if (ms > 0) return
      clearTimeout(timer)
    }
    timer = setTimeout(() => { timer = null; flush() }, ms)
  }

  function changed () {
    if (flushing) return // the flush in progress schedules the next one
    scheduleFlush(size() >= maxRows ? 0 : flushMs)
  }

  /** Writes what is buffered now; resolves true if it was written. @returns {Promise<boolean>} */
  function flush () {
    if (!flushing) {
      flushing = writeSome().finally(() => {
        flushing = null
        if (size()) scheduleFlush(failing ? retryMs : size() >= maxRows ? 0 : flushMs)
      })
    }
    return flushing
  }

  async function writeSome () {
    if (!size()) return true
    const batch = { attempts: attempts.splice(0, MAX_ROWS_PER_WRITE), updates: [...updates.values()].slice(0, MAX_ROWS_PER_WRITE) }
    for (const u of batch.updates) updates.delete(u.callbackId)
    try {
      await write(batch)
      failing = false
      return true
    } catch (err) {
      failing = true
      logger.warn({ err, attempts: batch.attempts.length, updates: batch.updates.length }, 'writing callback outcomes failed; will retry')
      attempts = batch.attempts.concat(attempts)
      // A newer state of the same callback, buffered meanwhile, wins.
      for (const u of batch.updates) if (!updates.has(u.callbackId)) updates.set(u.callbackId, u)
      return false
    }
  }

  return {
    /** @param {AttemptRow} row */
    attempt (row) { attempts.push(row); changed() },
    /** @param {UpdateRow} row */
    update (row) { updates.set(row.callbackId, row); changed() },
    size,
    /** Flushes everything; gives up after a few failed writes (the rows stay pending and are recovered). */
    async close (maxFailures = 3) {
      if (timer) clearTimeout(timer)
      timer = null
      let failures = 0
      while (size() || flushing) {
        if (flushing) { await flushing; continue }
        if (await flush()) continue
        if (++failures >= maxFailures) {
          logger.error({ attempts: attempts.length, updates: updates.size }, 'could not write callback outcomes at shutdown')
          break
        }
        await new Promise((resolve) => setTimeout(resolve, retryMs))
      }
      if (timer) clearTimeout(timer)
      timer = null
    }
  }
}

module.exports = { createWriteBuffer }
