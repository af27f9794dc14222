'use strict'

const { compareResults, withinResult, machine } = require('../../src/bench/compare')
const { summarizeCampaign, spread } = require('../../src/bench/summary')

/** A step as run.js records it, reduced to what the summary reads. */
const step = (offeredRate, { ok = true, kept = true, p99 = 20, sql = 3, cpu = 4, handlers = 2, bytes = 5000 } = {}) => ({
  offeredRate,
  meetsTarget: ok,
  valid: true,
  success: kept ? 1 : 0.9,
  backlog: { growing: !kept },
  sent: 100,
  scheduled: 100,
  latency: { p50: p99 / 2, p99 },
  sql: { statementsPerTransfer: sql, commitsPerTransfer: sql / 5, sqlBytesPerTransfer: bytes, redoBytesPerTransfer: 2 * bytes },
  kafka: { perTransfer: 7 },
  cpu: { ourMsPerTransfer: cpu, processes: { handlers: { msPerTransfer: handlers } } }
})
const run = (label, maxSustainableRate, steps, singleP50) => ({ label, maxSustainableRate, steps, single: { valid: true, latency: { p50: singleP50, p99: singleP50 * 2 } }, errors: [] })

function campaign () {
  const runs = [
    run('batched', 400, [step(100), step(200), step(400, { sql: 2, cpu: 3 }), step(600, { ok: false })], 20),
    run('naive', 100, [step(100, { sql: 40, cpu: 12 }), step(200, { ok: false }), step(400, { ok: false })], 60),
    run('traced', 200, [step(100, { cpu: 5 }), step(200, { cpu: 4.5, handlers: 3 }), step(400, { ok: false })], 25),
    run('batched', 600, [step(100), step(200, { cpu: 4 }), step(400, { sql: 2, cpu: 3 }), step(600, { sql: 1, cpu: 2 })], 22),
    run('naive', 100, [step(100, { sql: 44, cpu: 14 }), step(200, { ok: false })], 64),
    run('traced', 200, [step(100, { cpu: 5 }), step(200, { cpu: 5.5, handlers: 3 }), step(400, { ok: false })], 27)
  ]
  return { summary: summarizeCampaign(runs), startedAt: 'x', profile: 'test', machine: { nproc: 2, cpuModel: 'cpu', git: { commit: 'abc' } } }
}

describe('campaign summary', () => {
  it('takes median and range over repetitions', () => {
    expect(spread([3, 1, 2])).toEqual({ median: 2, min: 1, max: 3, n: 3 })
    expect(spread([1, 4])).toEqual({ median: 2.5, min: 1, max: 4, n: 2 })
    expect(spread([null, undefined])).toBeNull()
    const s = campaign().summary
    expect(s.byConfig.batched.maxSustainableRate).toEqual({ median: 500, min: 400, max: 600, n: 2 })
    expect(s.byConfig.batched.atReferenceStep.sqlPerTransfer).toEqual({ median: 1.5, min: 1, max: 2, n: 2 })
  })

  it('compares a variant with the configuration it changes, at a rate both sustained', () => {
    const runs = [
      run('batched', 400, [step(200, { sql: 5, cpu: 4 }), step(400, { sql: 5, cpu: 4 }), step(600, { ok: false })], 20),
      run('lingered', 600, [step(200, { sql: 2, cpu: 3 }), step(400, { sql: 2, p99: 40, cpu: 3, bytes: 4000 }), step(600, { sql: 2 })], 30),
      run('batched', 400, [step(200, { sql: 5, cpu: 4 }), step(400, { sql: 5, cpu: 4 }), step(600, { ok: false })], 20),
      run('lingered', 400, [step(200, { sql: 2, cpu: 3 }), step(400, { sql: 2, p99: 40, cpu: 3, bytes: 4000 }), step(600, { ok: false })], 30)
    ]
    const configs = { batched: { description: 'b' }, lingered: { description: 'l', base: 'batched' } }
    const result = { summary: summarizeCampaign(runs, configs), startedAt: 'x', profile: 'test', machine: { nproc: 2, cpuModel: 'cpu', git: { commit: 'abc' } } }
    const v = result.summary.comparisons.variants.lingered
    expect(v).toMatchObject({ base: 'batched', maxRate: 1.25, singleP50: 1.5, commitsPerTransfer: 0.4, cpuPerTransfer: 0.75 })
    expect(v.atCommonRate).toMatchObject({ rate: 400, a: { p99: 20, commitsPerTransfer: 1 }, b: { p99: 40, commitsPerTransfer: 0.4 } })
    const rows = withinResult(result)
    expect(rows.find((r) => r.metric === 'p99 at 400/s: lingered ÷ batched').value).toBe(2)
    expect(rows.find((r) => r.metric === 'commits / transfer at 400/s: lingered ÷ batched').value).toBe(0.4)
    expect(v.atCommonRate).toMatchObject({ a: { sqlBytesPerTransfer: 5000, redoBytesPerTransfer: 10000 }, b: { sqlBytesPerTransfer: 4000, redoBytesPerTransfer: 8000 } })
    expect(rows.find((r) => r.metric === 'SQL bytes / transfer at 400/s: lingered ÷ batched').value).toBe(0.8)
    expect(rows.find((r) => r.metric === 'redo bytes / transfer at 400/s: lingered ÷ batched').value).toBe(0.8)
    // Without its base in the campaign there is nothing to compare it with.
    expect(summarizeCampaign(runs.filter((r) => r.label === 'lingered'), configs).comparisons.variants).toBeUndefined()
  })

  it('leaves a single-transfer measurement with a failed transfer out of the medians, and counts it', () => {
    const runs = [run('batched', 100, [step(100)], 20), run('batched', 100, [step(100)], 10), run('batched', 100, [step(100)], 30)]
    runs[1].single.failed = 1
    const c = summarizeCampaign(runs).byConfig.batched
    expect(c.singleP50).toEqual({ median: 25, min: 20, max: 30, n: 2 })
    expect(c.singlesLeftOut).toBe(1)
  })

  it('reads work, and compares, only at rates sustained on the way up: a step that passed above a failed one does not count', () => {
    const runs = [
      run('batched', 200, [step(100, { sql: 4 }), step(200, { sql: 3 }), step(400, { ok: false }), step(600, { sql: 1 })], 20),
      run('traced', 100, [step(100, { cpu: 5 }), step(200, { ok: false }), step(400, { cpu: 6 })], 25)
    ]
    const s = summarizeCampaign(runs)
    expect(s.byConfig.batched.atReferenceStep.offeredRate.median).toBe(200)
    expect(s.byConfig.batched.atReferenceStep.sqlPerTransfer.median).toBe(3)
    expect(s.comparisons.tracingCost.atCommonRate.rate).toBe(100)
  })

  it('compares at the highest rate every run of both kept up with when none sustained the p99 bound, and says so', () => {
    // A machine whose disk stalls: every step misses the p99 bound; traced falls behind at 600/s in one run.
    const miss = (/** @type {number} */ rate, /** @type {any} */ o = {}) => step(rate, { ok: false, p99: 300, ...o })
    const runs = [
      run('batched', 0, [miss(200, { cpu: 7 }), miss(400, { cpu: 4 }), miss(600, { cpu: 2.8 }), miss(800, { kept: false })], 20),
      run('traced', 0, [miss(200, { cpu: 7.5 }), miss(400, { cpu: 4, p99: 400 }), miss(600, { cpu: 2.9, kept: false })], 22),
      run('batched', 0, [miss(200, { cpu: 7 }), miss(400, { cpu: 4 }), miss(600, { cpu: 2.8 })], 21),
      run('traced', 0, [miss(200, { cpu: 7.5 }), miss(400, { cpu: 4.4, p99: 400 }), miss(600, { cpu: 2.9 })], 23)
    ]
    const result = { summary: summarizeCampaign(runs), startedAt: 'x', profile: 'test', machine: { nproc: 2, cpuModel: 'cpu', git: { commit: 'abc' } } }
    const t = result.summary.comparisons.tracingCost
    expect(t.maxRate).toBeNull()
    expect(t.atCommonRate).toMatchObject({ rate: 400, basis: 'kept up', a: { p99: 300, cpuMsPerTransfer: 4 }, b: { p99: 400, cpuMsPerTransfer: 4.2 } })
    expect(t.cpuPerTransfer).toBe(1.05)
    const rows = withinResult(result)
    expect(rows.find((r) => r.metric === 'CPU / transfer at 400/s (kept up): traced ÷ off').value).toBe(1.05)
    expect(rows.find((r) => r.metric === 'p50 at 400/s (kept up): traced ÷ off').value).toBe(1.333)
    // Nothing kept up with by every run: nothing to compare.
    runs[1].steps[0] = miss(200, { kept: false })
    runs[1].steps[1] = miss(400, { kept: false })
    expect(summarizeCampaign(runs).comparisons.tracingCost.atCommonRate).toBeNull()
  })

  it('measures ratios between configurations, at a rate both sustained', () => {
    const c = campaign().summary.comparisons
    expect(c.batchedVsNaive.maxRate).toBe(5)
    expect(c.batchedVsNaive.singleP50).toBe(2.952) // 62 ÷ 21
    expect(c.batchedVsNaive.atCommonRate.rate).toBe(100)
    expect(c.tracingCost.maxRate).toBe(0.4)
    expect(c.tracingCost.atCommonRate).toMatchObject({ rate: 200, basis: 'sustained' })
    expect(c.tracingCost.cpuPerTransfer).toBe(1.25) // 5 ÷ 4
  })
})

describe('compare', () => {
  it('prints new ÷ old per configuration and metric', () => {
    const a = campaign()
    const b = campaign()
    b.summary.byConfig.batched.maxSustainableRate = { median: 1000 }
    b.summary.byConfig.batched.atReferenceStep.cpuMsPerTransfer.handlers = { median: 0.5 }
    const rows = compareResults(a, b)
    const get = (config, metric) => rows.find((r) => r.config === config && r.metric.trim() === metric)
    expect(get('batched', 'max sustainable rate /s')).toMatchObject({ old: 500, new: 1000, ratio: 2 })
    expect(get('batched', 'SQL / transfer')).toMatchObject({ old: 1.5, new: 1.5, ratio: 1 })
    expect(get('batched', 'CPU ms / transfer: handlers')).toMatchObject({ old: 2, new: 0.5, ratio: 0.25 })
    expect(get('naive', 'single p50 ms')).toMatchObject({ ratio: 1 })
  })

  it('lists the comparisons inside one campaign', () => {
    const rows = withinResult(campaign())
    expect(rows.find((r) => r.metric.startsWith('max sustainable rate: batched')).value).toBe(5)
    expect(rows.find((r) => r.metric.startsWith('CPU / transfer at 200/s')).value).toBe(1.25)
  })

  test('each file\'s line says how often its disk stalled, so two campaigns on disks that differ are not read alike', () => {
    const base = { startedAt: 'x', profile: 'full', machine: { nproc: 2, cpuModel: 'cpu', git: { commit: 'abc' } }, ledgerBefore: { transfer: 0 }, settings: { targets: { p99TargetMs: 100 } } }
    expect(machine(base)).toBe('x full: 2 cores cpu, commit abc, ledger ≈ 0 transfers, max rates at p99 ≤ 100 ms')
    const stalled = { ...base, diskWatch: { intervalMs: 20, thresholdMs: 20, seconds: 152.7, count: 44, maxMs: 661.9, stalledMs: 4824, stalledShare: 0.0316, failed: null } }
    expect(machine(stalled)).toBe('x full: 2 cores cpu, commit abc, ledger ≈ 0 transfers, max rates at p99 ≤ 100 ms, disk stalls ≥ 20 ms: 44 in 152.7 s (3.16% of the time, longest 661.9 ms)')
  })
})
