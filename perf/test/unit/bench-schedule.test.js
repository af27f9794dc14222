'use strict'

const { openSchedule, steadyWindow, summarizeStep, maxSustainable, maxKeptUp, ladderDone, backlogCheck } = require('../../src/bench/schedule')
const { PROFILES } = require('../../src/bench/profiles')

/** Samples of a step: each transfer completes `latency(t)` after its intended time. */
function samples (rate, durationMs, latency) {
  return [...openSchedule({ rate, durationMs })].map((t) => ({ t, latency: latency(t), doneAt: t + latency(t), ok: true }))
}

describe('open-model schedule', () => {
  it('fixes every send time up front at exactly 1/rate apart', () => {
    const times = openSchedule({ rate: 400, durationMs: 2000, t0: 1000 })
    expect(times.length).toBe(800)
    expect(times[0]).toBe(1000)
    expect(times[1] - times[0]).toBeCloseTo(2.5, 9)
    expect(times[799]).toBeCloseTo(1000 + 799 * 2.5, 9)
  })

  it('rounds down a fractional count and never schedules past the duration', () => {
    const times = openSchedule({ rate: 3, durationMs: 1500 })
    expect([...times]).toEqual([0, 1000 / 3, 2000 / 3, 1000])
  })
})

describe('steady-state window', () => {
  it('trims max(1 s, 20%) of warm-up and 10% of drain', () => {
    expect(steadyWindow(20000)).toEqual({ from: 4000, to: 18000 })
    expect(steadyWindow(4000)).toEqual({ from: 1000, to: 3600 })
  })

  it('summarizes only transfers intended inside the window', () => {
    // Slow warm-up (500 ms) for the first second, then 10 ms.
    const s = summarizeStep({ rate: 100, durationMs: 10000, scheduled: 1000, sent: 1000, samples: samples(100, 10000, (t) => (t < 1000 ? 500 : 10)) })
    expect(s.window).toEqual({ from: 2000, to: 9000 })
    expect(s.latency.count).toBe(700)
    expect(s.latency.max).toBe(10)
    expect(s.latencyAll.max).toBe(500)
    expect(s.meetsTarget).toBe(true)
    expect(s.achievedRate).toBeCloseTo(100, 0)
    expect(s.concurrency).toBeCloseTo(1, 1)
  })
})

describe('targets and backlog', () => {
  it('flags latency that grows across the window', () => {
    const s = summarizeStep({ rate: 100, durationMs: 10000, scheduled: 1000, sent: 1000, samples: samples(100, 10000, (t) => 5 + t / 50) })
    expect(s.backlog.growing).toBe(true)
    expect(s.meetsTarget).toBe(false)
    expect(s.reasons.join()).toMatch(/backlog growing/)
  })

  it('flags completions that stop keeping up, and failed transfers', () => {
    const xs = samples(100, 10000, () => 5).map((x, i) => (i % 50 === 0 ? { ...x, ok: false, latency: null, doneAt: null } : x))
    const s = summarizeStep({ rate: 100, durationMs: 10000, scheduled: 1000, sent: 1000, samples: xs })
    expect(s.success).toBe(0.98)
    expect(s.reasons.join()).toMatch(/success 98\.000% < 99\.99%/)
    const stalled = samples(100, 9000, () => 5).map((x) => (x.t > 6000 ? { ...x, doneAt: null, latency: null, ok: false } : x))
    expect(backlogCheck(stalled, { from: 2000, to: 9000 }, 100).growing).toBe(true)
  })

  it('fails a step whose p99 is over the target', () => {
    const s = summarizeStep({ rate: 100, durationMs: 10000, scheduled: 1000, sent: 1000, samples: samples(100, 10000, (t) => (Math.round(t / 10) % 50 === 0 ? 300 : 5)) }, { p99TargetMs: 100 })
    expect(s.latency.p99).toBeGreaterThan(100)
    expect(s.meetsTarget).toBe(false)
  })

  it('takes the highest step below the first failing or invalid one as the maximum sustainable rate, and stops after two steps past capacity', () => {
    const load = { success: 1, backlog: { growing: false }, sent: 10, scheduled: 10 }
    const steps = [
      { offeredRate: 100, meetsTarget: true, valid: true, ...load },
      { offeredRate: 200, meetsTarget: false, valid: true, ...load, backlog: { growing: true } },
      { offeredRate: 400, meetsTarget: true, valid: false, ...load },
      { offeredRate: 600, meetsTarget: true, valid: true, ...load }
    ]
    // 600/s passed, but 200/s did not: the rate was not kept on the way up.
    expect(maxSustainable(steps)).toBe(100)
    expect(maxSustainable([steps[3], steps[0], { offeredRate: 300, meetsTarget: true, valid: true }])).toBe(600)
    expect(maxSustainable([steps[0], steps[2], steps[3]])).toBe(100)
    expect(ladderDone(steps.slice(0, 2))).toBe(false)
    expect(ladderDone(steps.slice(0, 3))).toBe(true)
    expect(maxSustainable([{ offeredRate: 100, meetsTarget: false }])).toBe(0)
  })

  it('climbs on past steps that kept up but missed only the latency target, and stops after two past capacity (one in --quick)', () => {
    const step = (offeredRate, { p99Ok = false, growing = false, success = 1 } = {}) =>
      ({ offeredRate, meetsTarget: p99Ok && !growing && success === 1, valid: true, success, backlog: { growing }, sent: 10, scheduled: 10 })
    // A slower machine: every step over the p99 target, all kept up with.
    const slow = [step(50), step(100), step(200), step(300), step(400), step(600)]
    expect(ladderDone(slow)).toBe(false)
    expect(ladderDone([...slow, step(800, { growing: true })])).toBe(false)
    expect(ladderDone([...slow, step(800, { growing: true }), step(900, { success: 0.9 })])).toBe(true)
    expect(maxSustainable(slow)).toBe(0)
    expect(maxKeptUp(slow)).toBe(600)
    // --quick stops at the first step past capacity, to stay under 5 minutes on a slow machine.
    const quick = PROFILES.quick.stopAfterFailures
    expect(ladderDone(slow, quick)).toBe(false)
    expect(ladderDone([...slow, step(800, { growing: true })], quick)).toBe(true)
    expect(ladderDone([...slow, step(800, { growing: true })], PROFILES.full.stopAfterFailures)).toBe(false)
  })

  it('reports the highest rate kept up with, whatever the latency', () => {
    const step = (offeredRate, { success = 1, growing = false, sent = 10 } = {}) => ({ offeredRate, success, backlog: { growing }, sent, scheduled: 10, valid: true })
    expect(maxKeptUp([step(100), step(200), step(300, { growing: true }), step(400, { success: 0.99 })])).toBe(200)
    expect(maxKeptUp([step(100, { sent: 9 })])).toBe(0)
  })
})

describe('timeline', () => {
  it('gives latency per second of intended send time, failures apart', () => {
    const { timeline } = require('../../src/bench/schedule')
    const xs = [...openSchedule({ rate: 10, durationMs: 2000 })].map((t, i) => ({ t, latency: t < 1000 ? 5 : 50 + i, ok: i !== 15 }))
    const tl = timeline(xs)
    expect(tl).toHaveLength(2)
    expect(tl[0]).toEqual({ second: 0, n: 10, failed: 0, p50: 5, p99: 5, max: 5 })
    expect(tl[1]).toMatchObject({ second: 1, n: 9, failed: 1, max: 69 })
  })
})
