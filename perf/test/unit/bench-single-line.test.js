'use strict'

const { singleLine } = require('../../src/bench/report-md')

const single = {
  count: 500,
  failed: 0,
  latency: { p50: 14.2, p90: 20.1, p99: 24.1, max: 30.5 },
  sql: { statementsPerTransfer: 37.1, commitsPerTransfer: 5.97, pageReadsPerTransfer: 0, pagesCreatedPerTransfer: 0.4, pagesWrittenPerTransfer: 0 },
  cpu: { otherProcessesPctCore: 0 },
  disk: { count: 0 },
  valid: true
}

test('the single-transfer line says how the switch was warmed before it was measured', () => {
  const line = singleLine({ single, warmup: { count: 1000, concurrency: 8, ms: 4630 } })
  expect(line).toBe('Single transfer (500 sequential, 0 failed; after 1000 unmeasured warm-up transfers from 8 concurrent senders, 4.6 s): ' +
    'p50 14.2 ms, p90 20.1, p99 24.1, max 30.5; 37.1 SQL, 5.97 commits, 0 disk page reads, 0.4 pages created and 0 pages written per transfer; ' +
    'other processes used 0% of a core meanwhile; gates passed.')
})

test('a result from before the warm-up was recorded reads as it did, and a failed gate is bold', () => {
  const line = singleLine({ single: { ...single, valid: false, disk: { count: 2, maxMs: 96.4 } } })
  expect(line).toMatch(/^Single transfer \(500 sequential, 0 failed\): p50 14\.2 ms/)
  expect(line).toContain('the disk stalled 2 times (longest 96.4 ms); gates **FAILED**.')
})
