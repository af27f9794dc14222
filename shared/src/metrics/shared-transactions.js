'use strict'

// The handler process's shared transactions (shared/src/db/shared-transactions.js):
// how long each was open and how many chunks it carried. With one open at a
// time (DB_SHARED_TRANSACTIONS=1), rate(…_seconds_sum) is the share of the
// time the process's commit lane was busy: near 1, every stage's chunk waits
// for the one in progress, and that wait is in each stage's db time.

const { Counter, Gauge, Histogram } = require('prom-client')
const { WORK_SECONDS, BATCH_SIZE } = require('./buckets')

/**
 * @param {import('prom-client').Registry} registry
 * @returns {{ onGroup: (info: import('../db/shared-transactions').GroupInfo) => void }}
 */
function createSharedTransactionMetrics (registry) {
  const registers = [registry]
  const seconds = new Histogram({
    name: 'switchyard_shared_transaction_seconds',
    help: 'Time a shared transaction was open: from taking its chunks to its commit (or rollback).',
    buckets: [...WORK_SECONDS],
    registers
  })
  const chunks = new Histogram({
    name: 'switchyard_shared_transaction_chunks',
    help: 'Chunks (one consumer\'s records each) that shared one transaction and its COMMIT.',
    buckets: [...BATCH_SIZE],
    registers
  })
  const rolledBack = new Counter({
    name: 'switchyard_shared_transaction_rollbacks_total',
    help: 'Shared transactions rolled back (a chunk failed, or two of its chunks wrote the same row; their chunks then ran again, each alone).',
    registers
  })
  const lingerWindow = new Gauge({
    name: 'switchyard_shared_transaction_window_seconds',
    help: 'How long the latest shared transaction that waited for chunks could take them for (DB_SHARED_LINGER_MS, or its share of recent transactions with DB_SHARED_LINGER_SHARE).',
    registers
  })
  return {
    onGroup (info) {
      seconds.observe(Math.max(0, info.ms) / 1000)
      if (info.windowMs > 0) lingerWindow.set(info.windowMs / 1000)
      chunks.observe(info.members)
      if (info.rolledBack) rolledBack.inc()
    }
  }
}

module.exports = { createSharedTransactionMetrics }
