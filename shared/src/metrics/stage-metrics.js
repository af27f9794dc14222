'use strict'

// The consumer runner's observer: turns each ChunkReport (one partition's
// committed, produced and offset-committed chunk) and each transaction into
// histogram and counter observations per stage. The runner calls it after
// the work, so business code never sees a metric.

const { Counter, Histogram } = require('prom-client')
const { WORK_SECONDS, QUEUE_GAP_SECONDS, BATCH_SIZE } = require('./buckets')

/** @typedef {import('../kafka/run-consumer').ChunkReport} ChunkReport */

/** Clocks can step back; a negative duration is recorded as zero. @param {number} ms */
const seconds = (ms) => Math.max(0, ms) / 1000

/**
 * @param {import('prom-client').Registry} registry
 * @returns {Required<import('../kafka/run-consumer').ConsumerObserver>}
 */
function createStageMetrics (registry) {
  const labelNames = ['stage']
  const registers = [registry]
  /** @param {string} name @param {string} help @param {readonly number[]} buckets */
  const histogram = (name, help, buckets) => new Histogram({ name, help, labelNames, buckets: [...buckets], registers })

  const processing = histogram('switchyard_stage_processing_seconds', 'Time from picking a chunk up until its offsets are resolved (transaction, produce); offsets are committed by interval.', WORK_SECONDS)
  const db = histogram('switchyard_stage_db_seconds', 'Time of a chunk\'s database transaction, retries included.', WORK_SECONDS)
  const produce = histogram('switchyard_stage_produce_seconds', 'Time to produce a chunk\'s outgoing messages and have them acknowledged (acks=all).', WORK_SECONDS)
  const queueGap = histogram('switchyard_queue_gap_seconds', 'Per message: time from being produced (record timestamp) to being picked up by the stage.', QUEUE_GAP_SECONDS)
  const batchSize = histogram('switchyard_batch_size', 'Records per chunk: one partition\'s share of a transaction.', BATCH_SIZE)
  const transactionRecords = histogram('switchyard_transaction_records', 'Records per database transaction (the chunks of every partition that shared it).', BATCH_SIZE)
  const messages = new Counter({ name: 'switchyard_messages_total', help: 'Records consumed by the stage (redeliveries included).', labelNames, registers })
  const deadLetters = new Counter({ name: 'switchyard_dead_letters_total', help: 'Records the stage gave up on and sent to the dead-letter topic.', labelNames, registers })

  return {
    /** @param {ChunkReport} report */
    onChunk (report) {
      const labels = { stage: report.stage }
      processing.observe(labels, seconds(report.totalMs))
      // A chunk whose records were all skipped as replayed did no database
      // or produce work; recording its zeros would drag the percentiles down.
      if (report.queueGapsMs.length) {
        db.observe(labels, seconds(report.dbMs))
        produce.observe(labels, seconds(report.produceMs))
      }
      for (const gap of report.queueGapsMs) queueGap.observe(labels, seconds(gap))
      batchSize.observe(labels, report.size)
      messages.inc(labels, report.size)
    },
    /** @param {{ stage: string, records: number }} info */
    onTransaction (info) {
      transactionRecords.observe({ stage: info.stage }, info.records)
    },
    /** @param {{ stage: string }} info */
    onDeadLetter (info) {
      deadLetters.inc({ stage: info.stage })
    }
  }
}

module.exports = { createStageMetrics }
