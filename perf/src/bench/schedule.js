'use strict'

// The open model and what is read from one step, as pure functions: send
// times fixed up front, the steady-state window, the backlog test and the
// step's summary. Latency is measured from the *intended* send time, so a
// system that falls behind cannot slow the generator down and hide it.

const { createHistogram } = require('./histogram')

/**
 * Intended send times (ms, on the generator's monotonic clock): t0 + i/rate.
 * @param {{ rate: number, durationMs: number, t0?: number }} opts
 */
function openSchedule ({ rate, durationMs, t0 = 0 }) {
  const n = Math.floor((rate * durationMs) / 1000)
  const times = new Float64Array(n)
  for (let i = 0; i < n; i++) times[i] = t0 + (i * 1000) / rate
  return times
}

/**
 * The steady-state window, relative to the step's start: warm-up and drain
 * trimmed.
 * @param {number} durationMs
 * @param {{ warmupShare?: number, minWarmupMs?: number, tailShare?: number }} [opts]
 */
function steadyWindow (durationMs, { warmupShare = 0.2, minWarmupMs = 1000, tailShare = 0.1 } = {}) {
  const from = Math.min(durationMs / 2, Math.max(minWarmupMs, durationMs * warmupShare))
  const to = durationMs * (1 - tailShare)
  return { from, to: Math.max(from, to) }
}

/**
 * Least-squares slope of y over x.
 * @param {number[]} xs @param {number[]} ys
 */
function slope (xs, ys) {
  const n = xs.length
  if (n < 2) return 0
  let sx = 0; let sy = 0
  for (let i = 0; i < n; i++) { sx += xs[i]; sy += ys[i] }
  const mx = sx / n; const my = sy / n
  let num = 0; let den = 0
  for (let i = 0; i < n; i++) { num += (xs[i] - mx) * (ys[i] - my); den += (xs[i] - mx) ** 2 }
  return den ? num / den : 0
}

/**
 * Backlog growth inside the window: the latency trend over the window and
 * whether completions kept up with arrivals in its last third.
 * @param {{ t: number, latency: number | null, doneAt: number | null }[]} samples t = intended time relative to the step start
 * @param {{ from: number, to: number }} window
 * @param {number} rate offered rate per second
 */
function backlogCheck (samples, window, rate) {
  const inWin = samples.filter((s) => s.t >= window.from && s.t < window.to)
  const ok = inWin.filter((s) => s.latency !== null)
  const perSecond = slope(ok.map((s) => s.t / 1000), ok.map((s) => /** @type {number} */ (s.latency)))
  const growthMs = perSecond * ((window.to - window.from) / 1000)
  const median = (/** @type {number[]} */ xs) => { const a = [...xs].sort((p, q) => p - q); return a.length ? a[Math.floor(a.length / 2)] : 0 }
  const third = (window.to - window.from) / 3
  const first = ok.filter((s) => s.t < window.from + third).map((s) => /** @type {number} */ (s.latency))
  const last = ok.filter((s) => s.t >= window.to - third).map((s) => /** @type {number} */ (s.latency))
  // Completions that arrived during the last third of the window, against the arrivals scheduled in it.
  const lastFrom = window.to - third
  const arrived = third * rate / 1000
  const completed = samples.filter((s) => s.doneAt !== null && s.doneAt >= lastFrom && s.doneAt < window.to).length
  const keptUp = arrived ? completed / arrived : 1
  const firstMedian = median(first)
  const lastMedian = median(last)
  const growing = (growthMs > Math.max(25, firstMedian)) || (lastMedian - firstMedian > Math.max(25, firstMedian)) || keptUp < 0.9
  return { growthMs: round(growthMs), firstThirdP50: round(firstMedian), lastThirdP50: round(lastMedian), keptUp: round(keptUp, 3), growing }
}

/**
 * Latency per second of intended send time, to see stalls and trends.
 * @param {{ t: number, latency: number | null, ok: boolean }[]} samples
 */
function timeline (samples) {
  /** @type {number[][]} */
  const buckets = []
  const failed = /** @type {number[]} */ ([])
  for (const s of samples) {
    const i = Math.floor(s.t / 1000)
    if (!buckets[i]) { buckets[i] = []; failed[i] = 0 }
    if (s.ok && s.latency !== null) buckets[i].push(s.latency)
    else failed[i]++
  }
  return Array.from(buckets, (b, i) => {
    const v = (b || []).sort((x, y) => x - y)
    const at = (/** @type {number} */ p) => (v.length ? round(v[Math.max(1, Math.ceil(p * v.length)) - 1]) : null)
    return { second: i, n: v.length, failed: failed[i] || 0, p50: at(0.5), p99: at(0.99), max: v.length ? round(v[v.length - 1]) : null }
  })
}

/**
 * Everything one step tells: latency over the steady-state window, success
 * over the whole step, achieved rate, backlog.
 * @param {{ rate: number, durationMs: number, scheduled: number, sent: number,
 *   samples: { t: number, latency: number | null, doneAt: number | null, ok: boolean }[], window?: { from: number, to: number } }} step
 * @param {{ p99TargetMs?: number, minSuccess?: number }} [targets]
 */
function summarizeStep (step, { p99TargetMs = 100, minSuccess = 0.9999 } = {}) {
  const window = step.window || steadyWindow(step.durationMs)
  const hist = createHistogram()
  const all = createHistogram()
  let okCount = 0
  for (const s of step.samples) {
    if (!s.ok || s.latency === null) continue
    okCount++
    all.record(s.latency)
    if (s.t >= window.from && s.t < window.to) hist.record(s.latency)
  }
  const success = step.scheduled ? okCount / step.scheduled : 0
  const winMs = window.to - window.from
  const completedInWindow = step.samples.filter((s) => s.ok && s.doneAt !== null && s.doneAt >= window.from && s.doneAt < window.to).length
  const achievedRate = winMs > 0 ? completedInWindow / (winMs / 1000) : 0
  const backlog = backlogCheck(step.samples, window, step.rate)
  const latency = hist.summary()
  const reasons = []
  if (latency.p99 === null || latency.p99 > p99TargetMs) reasons.push(`p99 ${latency.p99} ms > ${p99TargetMs} ms`)
  if (success < minSuccess) reasons.push(`success ${(success * 100).toFixed(3)}% < ${(minSuccess * 100).toFixed(2)}%`)
  if (backlog.growing) reasons.push(`backlog growing (latency ${backlog.growthMs >= 0 ? '+' : ''}${backlog.growthMs} ms over the window, completions kept up ${(backlog.keptUp * 100).toFixed(1)}%)`)
  if (step.sent < step.scheduled) reasons.push(`sending stopped after ${step.sent} of ${step.scheduled} (backlog limit)`)
  return {
    offeredRate: step.rate,
    durationMs: step.durationMs,
    window,
    scheduled: step.scheduled,
    sent: step.sent,
    completed: okCount,
    success: round(success, 6),
    achievedRate: round(achievedRate, 1),
    latency,
    latencyAll: all.summary(),
    concurrency: latency.mean === null ? 0 : round(achievedRate * latency.mean / 1000, 2),
    backlog,
    timeline: timeline(step.samples),
    meetsTarget: reasons.length === 0,
    reasons
  }
}

/**
 * The steps a run sustained: in rising rate, each one up to the first that
 * missed the target or failed its gates. A step that passes above a failed
 * one does not count: the rate was not kept on the way up, and counting it
 * would report the luckiest of several tries near the knee.
 * @template {{ offeredRate: number, meetsTarget: boolean, valid?: boolean }} S
 * @param {S[]} steps
 * @returns {S[]}
 */
function sustainedSteps (steps) {
  const out = []
  for (const s of [...steps].sort((a, b) => a.offeredRate - b.offeredRate)) {
    if (!s.meetsTarget || s.valid === false) break
    out.push(s)
  }
  return out
}

/**
 * The maximum sustainable rate: the highest step that met the target and
 * passed its validity gates, as did every step below it.
 * @param {{ offeredRate: number, meetsTarget: boolean, valid?: boolean }[]} steps
 */
function maxSustainable (steps) {
  const sustained = sustainedSteps(steps)
  return sustained.length ? sustained[sustained.length - 1].offeredRate : 0
}

/**
 * @typedef {{ offeredRate: number, success: number, backlog: { growing: boolean }, sent: number, scheduled: number, valid?: boolean }} LoadStep
 */

/**
 * Whether the system kept up with a step's load — success, no backlog growth,
 * everything sent, gates passed — whatever the latency.
 * @param {LoadStep} s @param {number} [minSuccess]
 */
const keptUp = (s, minSuccess = 0.9999) => s.success >= minSuccess && !s.backlog.growing && s.sent === s.scheduled && s.valid !== false

/**
 * The highest offered rate the system kept up with. A lower bound when the ladder stopped first.
 * @param {LoadStep[]} steps
 * @param {number} [minSuccess]
 */
function maxKeptUp (steps, minSuccess = 0.9999) {
  const ok = steps.filter((s) => keptUp(s, minSuccess))
  return ok.length ? Math.max(...ok.map((s) => s.offeredRate)) : 0
}

/**
 * Whether a ladder stops: after `failures` steps the system did not keep up
 * with (not necessarily consecutive). A step past capacity says the next one
 * will be too; a step that kept up but missed only the latency target does
 * not stop the ladder, which its list of rates bounds: on a machine slower
 * than the README's every step may miss the target while the curve up to the
 * knee is still worth drawing (the latency and achieved-rate charts, "kept up
 * with"). The maximum sustainable rate is the same either way: it ends at the
 * first failing step.
 * @param {LoadStep[]} steps @param {number} [failures] @param {number} [minSuccess]
 */
function ladderDone (steps, failures = 2, minSuccess = 0.9999) {
  return steps.filter((s) => !keptUp(s, minSuccess)).length >= failures
}

/** @param {number} v @param {number} [digits] */
function round (v, digits = 2) {
  const f = 10 ** digits
  return Math.round(v * f) / f
}

module.exports = { openSchedule, steadyWindow, backlogCheck, timeline, summarizeStep, sustainedSteps, maxSustainable, keptUp, maxKeptUp, ladderDone, round }
