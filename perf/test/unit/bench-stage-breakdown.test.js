'use strict'

// The per-stage line of every bench step: read from the handlers' metrics
// before and after the step, so only the step's own work counts.

const { parseStages, parseGc, parseShared, stageDelta, stagesLine } = require('../../src/bench/stage-breakdown')

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

/** The shared-transaction histograms after `n` of them, open `seconds` in all, with `chunks` chunks. */
const sharedExposition = ({ n, seconds, chunks }) => [
  '# TYPE switchyard_shared_transaction_seconds histogram',
  `switchyard_shared_transaction_seconds_sum ${seconds}`,
  `switchyard_shared_transaction_seconds_count ${n}`,
  `switchyard_shared_transaction_chunks_sum ${chunks}`,
  `switchyard_shared_transaction_chunks_count ${n}`
].join('\n')

test('shared transactions: how many, chunks per one, time open, and the share of the step one was open', () => {
  const text = (x) => exposition({ tx: 10, records: 20, gapSum: 0.05, gaps: 20, dbSum: 0.02, chunks: 10, gcCount: 0, gcSum: 0 }) + '\n' + sharedExposition(x)
  const at = (t, x) => ({ stages: parseStages(text(x)), gc: parseGc(text(x)), shared: parseShared(text(x)), at: t })
  // 2 s apart: 100 more shared transactions, open 1.5 s in all, with 250 chunks.
  const d = stageDelta(at(1000, { n: 50, seconds: 0.5, chunks: 60 }), at(3000, { n: 150, seconds: 2, chunks: 310 }))
  expect(d.sharedTransactions).toEqual({ transactions: 100, chunksPerTransaction: 2.5, meanMs: 15, busyShare: 0.75 })
  expect(stagesLine({ byStage: {}, handlersGc: {}, sharedTransactions: d.sharedTransactions })).toBe('; shared transactions 100, 2.5 chunks/tx, 15 ms open, busy 0.75')
  // With a lingering window (DB_SHARED_LINGER_MS), the latest one is on the line too.
  const lingering = stageDelta(at(1000, { n: 50, seconds: 0.5, chunks: 60 }), { ...at(3000, { n: 150, seconds: 2, chunks: 310 }), windowMs: 2.46 })
  expect(lingering.sharedTransactions).toEqual({ transactions: 100, chunksPerTransaction: 2.5, meanMs: 15, busyShare: 0.75, windowMs: 2.5 })
  expect(stagesLine({ byStage: {}, handlersGc: {}, sharedTransactions: lingering.sharedTransactions })).toBe('; shared transactions 100, 2.5 chunks/tx, 15 ms open, busy 0.75, window 2.5 ms')
  // Rolled back meanwhile (a chunk failed, or two wrote one row): said, as their chunks ran twice.
  const rolled = stageDelta({ ...at(1000, { n: 50, seconds: 0.5, chunks: 60 }), rollbacks: 2 }, { ...at(3000, { n: 150, seconds: 2, chunks: 310 }), rollbacks: 5 })
  expect(rolled.sharedTransactions.rolledBack).toBe(3)
  expect(stagesLine({ byStage: {}, handlersGc: {}, sharedTransactions: rolled.sharedTransactions })).toBe('; shared transactions 100, 2.5 chunks/tx, 15 ms open, busy 0.75, 3 rolled back')
  // None between the scrapes (the naive baseline, or DB_SHARED_TRANSACTIONS=0): nothing to say.
  expect(stageDelta(at(1000, { n: 50, seconds: 0.5, chunks: 60 }), at(3000, { n: 50, seconds: 0.5, chunks: 60 })).sharedTransactions).toBeNull()
})

test('a scrape that failed gives no breakdown rather than a wrong one', () => {
  const one = scrape(exposition({ tx: 1, records: 1, gapSum: 0, gaps: 1, dbSum: 0, chunks: 1, gcCount: 0, gcSum: 0 }))
  expect(stageDelta(null, one)).toBeNull()
  expect(stageDelta(one, null)).toBeNull()
  expect(stagesLine(null)).toBe('')
})

describe('several handler processes', () => {
  const http = require('node:http')
  const { stagesOfTexts } = require('../../src/bench/stage-breakdown')
  const { scrapeAll } = require('../../src/bench/scrape')
  /** As run.js reads the handler processes: every /metrics once (null if one did not answer), as one scrape. @param {string[]} urls */
  const scrapeStages = async (urls) => { const texts = await scrapeAll(urls); return texts && stagesOfTexts(texts) }
  /** @type {http.Server[]} */
  const servers = []
  afterAll(() => Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve)))))

  /** A /metrics endpoint answering `text` (or `status`). @returns {Promise<string>} its URL */
  function metricsServer (text, status = 200) {
    const server = http.createServer((req, res) => { res.writeHead(status); res.end(text) })
    servers.push(server)
    return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${/** @type {any} */ (server.address()).port}/metrics`)))
  }

  const notification = (tx, gcCount) => [
    `switchyard_transaction_records_sum{stage="notification"} ${tx * 10}`,
    `switchyard_transaction_records_count{stage="notification"} ${tx}`,
    `switchyard_stage_db_seconds_sum{stage="notification"} ${tx * 0.004}`,
    `switchyard_stage_db_seconds_count{stage="notification"} ${tx}`,
    `switchyard_nodejs_gc_duration_seconds_sum{kind="minor"} ${gcCount * 0.002}`,
    `switchyard_nodejs_gc_duration_seconds_count{kind="minor"} ${gcCount}`
  ].join('\n')

  test('their stages, garbage collections and shared transactions are read as one', async () => {
    const ledger = await metricsServer(exposition({ tx: 30, records: 120, gapSum: 0.45, gaps: 120, dbSum: 0.12, chunks: 30, gcCount: 9, gcSum: 0.03 }) + '\n' +
      sharedExposition({ n: 6, seconds: 0.25, chunks: 12 }) + '\nswitchyard_shared_transaction_window_seconds 0')
    const callbacks = await metricsServer(notification(5, 3) + '\n' + sharedExposition({ n: 4, seconds: 0.5, chunks: 4 }) + '\n' +
      'switchyard_shared_transaction_window_seconds 0.003\nswitchyard_shared_transaction_rollbacks_total 2')
    const both = await scrapeStages([ledger, callbacks])
    expect(both.windowMs).toBeCloseTo(3, 9) // the one process that lingered (the gauge reads 0 in the other)
    expect(both.rollbacks).toBe(2)
    expect(Object.keys(both.stages).sort()).toEqual(['idle-stage', 'notification', 'prepare'])
    expect(both.stages.notification.transaction).toEqual({ sum: 50, count: 5 })
    expect(both.stages.prepare.transaction).toEqual({ sum: 120, count: 30 })
    // 9 + 3 collections, 30 + 6 ms.
    expect(both.gc.minor.count).toBe(12)
    expect(both.gc.minor.sum).toBeCloseTo(0.036, 9)
    expect(both.shared).toEqual({ seconds: { sum: 0.75, count: 10 }, chunks: { sum: 16, count: 10 } })
    const before = scrape(exposition({ tx: 10, records: 20, gapSum: 0.05, gaps: 20, dbSum: 0.02, chunks: 10, gcCount: 5, gcSum: 0.01 }))
    const d = stageDelta({ stages: { ...before.stages, notification: scrape(notification(1, 0)).stages.notification }, gc: before.gc }, both)
    expect(d.byStage.notification).toEqual({ transactions: 4, recordsPerTransaction: 10, queueGapMs: 0, dbMs: 4, produceMs: 0 })
    expect(d.handlersGc.minor.count).toBe(7)
  })

  test('one process that does not answer gives no breakdown rather than half of one', async () => {
    const ledger = await metricsServer(exposition({ tx: 1, records: 1, gapSum: 0, gaps: 1, dbSum: 0, chunks: 1, gcCount: 0, gcSum: 0 }))
    const broken = await metricsServer('', 503)
    expect(await scrapeStages([ledger, broken])).toBeNull()
    expect(await scrapeStages([ledger])).not.toBeNull()
  })
})
