'use strict'

const { probeParagraphs, probeSummary } = require('../../src/bench/report-md')
const { REFERENCE_WORK_MS } = require('../../src/bench/speed-probe')

/** A machine probe as campaign.js records it. @param {number} workMs @param {number} speedMs */
const probe = (workMs, speedMs) => ({
  workMs,
  speedMs,
  parallelMs: speedMs + 10,
  fsyncMs: { p50: 0.1, p99: 0.3, max: 1 },
  wakeUs: { p50: 80, p99: 200, idle: { gapMs: 5, p50: 45, p99: 300 } }
})

describe('the report\'s machine probes', () => {
  test('a machine whose work probe is far from the README\'s says so in bold, whatever its speed probe reads', () => {
    const slow = REFERENCE_WORK_MS * 2
    const text = probeParagraphs({ start: probe(slow, 81), end: probe(slow - 1, 82) }, [probe(slow - 2, 81)]).join('\n')
    expect(text).toContain(`Work probe (work shaped like the switch's own — JSON, small hashes, statement text — single-threaded, ms; lower is faster; a shared VM's speed drifts): ${slow} at the start, ${slow - 2} before the runs, ${slow - 1} at the end.`)
    expect(text).toContain(`**The work probe (${slow} ms, against ${REFERENCE_WORK_MS} ms) says this machine is 2× slower than the one the README's figures come from`)
    expect(text).toContain('Speed probe (a tight integer loop and sha256, ms: drift within the campaign, and earlier results; it does not weigh one machine against another): 81 at the start, 81 before the runs, 82 at the end.')
  })

  test('a speed probe far from its old reference raises no note when the work probe is at the README\'s', () => {
    const text = probeParagraphs({ start: probe(REFERENCE_WORK_MS, 320) }, [probe(REFERENCE_WORK_MS, 300), probe(REFERENCE_WORK_MS, 310)]).join('\n')
    expect(text).not.toContain('**')
    expect(text).toContain('Speed probe (a tight integer loop and sha256, ms: drift within the campaign, and earlier results; it does not weigh one machine against another): 320 at the start, 300–310 before the runs.')
  })

  test('a campaign from before the work probe shows its speed probe and no comparison', () => {
    const old = { ...probe(0, 400) }
    delete old.workMs
    const text = probeParagraphs({ start: old }, []).join('\n')
    expect(text).not.toContain('Work probe')
    expect(text).not.toContain('**')
    expect(text).toContain('400 at the start.')
  })
})

describe('one probe in a line', () => {
  test('the run line and the run\'s heading say every probe the campaign took', () => {
    expect(probeSummary(probe(131.2, 301.5))).toBe('work probe 131.2 ms, speed probe 301.5 ms, all cores 311.5 ms, fsync p50 0.1 / p99 0.3 ms, process round trip p50 80 µs, from idle 45 µs')
  })

  test('an earlier result\'s probe without the work and wake probes says only what it took', () => {
    const old = { speedMs: 81, parallelMs: 85, fsyncMs: { p50: 0.02, p99: 0.05, max: 0.1 } }
    expect(probeSummary(old)).toBe('speed probe 81 ms, all cores 85 ms, fsync p50 0.02 / p99 0.05 ms')
  })
})
