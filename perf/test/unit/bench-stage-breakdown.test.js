'use strict'

// The per-stage line of every bench step: read from the handlers' metrics
// before and after the step, so only the step's own work counts.

const { parseStages, parseGc, stageDelta, stagesLine } = require('../../src/bench/stage-breakdown')

/** An exposition with the counters a handler process has after `n` transactions. */
function exposition ({ tx, records, gapSum, gaps, dbSum, chunks, gcCount, gcSum }) {
  return [
    '# HELP switchyard_transaction_records Records per database transaction.',
    '# TYPE switchyard_transaction_records histogram',
    'switchyard_transaction_records_bucket{le="1",stage="prepare"} 0',
    `switchyard_transaction_records_sum{stage="prepare"} ${records}`,
    `switchyard_transaction_records_count{stage="prepare"} ${tx}`,
    `switchyard_queue_gap_seconds_sum{stage="prepare"} ${gapSum}`,
    `switchyard_queue_gap_seconds_count{stage="prepare"} ${gaps}`,
    `switchyard_stage_db_seconds_sum{stage="prepare"} ${dbSum}`,
    `switchyard_stage_db_seconds_count{stage="prepare"} ${chunks}`,
    `switchyard_stage_produce_seconds_sum{stage="prepare"} ${chunks * 0.001}`,
    `switchyard_stage_produce_seconds_count{stage="prepare"} ${chunks}`,
    `switchyard_batch_size_sum{stage="prepare"} ${records}`,
    `switchyard_batch_size_count{stage="prepare"} ${chunks}`,
    'switchyard_stage_db_seconds_sum{stage="idle-stage"} 1',
    'switchyard_stage_db_seconds_count{stage="idle-stage"} 3',
    `switchyard_nodejs_gc_duration_seconds_sum{kind="minor"} ${gcSum}`,
    `switchyard_nodejs_gc_duration_seconds_count{kind="minor"} ${gcCount}`,
    'switchyard_process_cpu_seconds_total 12'
  ].join('\n')
}

const scrape = (text) => ({ stages: parseStages(text), gc: parseGc(text) })

test('a step is the difference of two scrapes, per stage', () => {
  const before = scrape(exposition({ tx: 10, records: 20, gapSum: 0.05, gaps: 20, dbSum: 0.02, chunks: 10, gcCount: 5, gcSum: 0.01 }))
  const after = scrape(exposition({ tx: 30, records: 120, gapSum: 0.45, gaps: 120, dbSum: 0.12, chunks: 30, gcCount: 9, gcSum: 0.03 }))
  const d = stageDelta(before, after)
  expect(d.byStage).toEqual({ prepare: { transactions: 20, recordsPerTransaction: 5, queueGapMs: 4, dbMs: 5, produceMs: 1 } })
  expect(d.handlersGc).toEqual({ minor: { count: 4, ms: 20, meanMs: 5 } })
  expect(stagesLine(d)).toBe('prepare 5/tx gap 4 db 5 produce 1; handlers GC (count×mean ms) minor 4×5')
})

test('a scrape that failed gives no breakdown rather than a wrong one', () => {
  const one = scrape(exposition({ tx: 1, records: 1, gapSum: 0, gaps: 1, dbSum: 0, chunks: 1, gcCount: 0, gcSum: 0 }))
  expect(stageDelta(null, one)).toBeNull()
  expect(stageDelta(one, null)).toBeNull()
  expect(stagesLine(null)).toBe('')
})
