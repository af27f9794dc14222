'use strict'

// The charts of a campaign, as SVG text: latency percentiles vs offered
// rate, achieved vs offered rate, and throughput and latency vs concurrency
// (concurrency from Little's law: achieved rate × mean latency over the
// steady-state window). Several repetitions of a configuration are shown as
// the median per offered rate.

const { lineChart } = require('./svg')
const { spread } = require('./summary')

/**
 * Median of a step field per offered rate over the runs of one configuration.
 * @param {any[]} runs @param {(s: any) => number | null} f
 * @returns {[number, number][]}
 */
function perRate (runs, f) {
  /** @type {Map<number, number[]>} */
  const by = new Map()
  for (const run of runs) {
    for (const s of run.steps) {
      const v = f(s)
      if (typeof v !== 'number') continue
      if (!by.has(s.offeredRate)) by.set(s.offeredRate, [])
      by.get(s.offeredRate).push(v)
    }
  }
  return [...by].sort((a, b) => a[0] - b[0]).map(([rate, vs]) => [rate, /** @type {any} */ (spread(vs)).median])
}

/** Points (x, y) per step of a configuration, median over runs by offered rate. @param {any[]} runs @param {(s: any) => number} fx @param {(s: any) => number} fy */
function pairs (runs, fx, fy) {
  const xs = perRate(runs, fx); const ys = new Map(perRate(runs, fy))
  return xs.filter(([rate]) => ys.has(rate)).map(([rate, x]) => /** @type {[number, number]} */ ([x, /** @type {number} */ (ys.get(rate))]))
}

/** @param {any} result */
function charts (result) {
  const labels = [...new Set(result.runs.map((/** @type {any} */ r) => r.label))]
  const runsOf = (/** @type {string} */ l) => result.runs.filter((/** @type {any} */ r) => r.label === l)
  const main = labels.includes('batched') ? 'batched' : labels[0]
  const out = /** @type {Record<string, string>} */ ({})
  if (!main) return out
  const mainRuns = runsOf(main)
  const others = labels.filter((l) => l !== main)
  const target = result.settings.targets.p99TargetMs
  const maxOffered = Math.max(1, ...result.runs.flatMap((/** @type {any} */ r) => r.steps.map((/** @type {any} */ s) => s.offeredRate)))

  out['latency-vs-rate'] = lineChart({
    title: `End-to-end latency vs offered rate (${main}, steady state)`,
    xLabel: 'offered rate (transfers/s)',
    yLabel: 'latency (ms)',
    logY: true,
    series: [
      ...[['p50', 'p50'], ['p90', 'p90'], ['p99', 'p99'], ['p99.9', 'p999']].map(([name, k]) => ({ name: `${main} ${name}`, points: perRate(mainRuns, (s) => s.latency[k]) })),
      ...others.map((l) => ({ name: `${l} p99`, dash: true, points: perRate(runsOf(l), (s) => s.latency.p99) })),
      { name: `target p99 ${target} ms`, dash: true, points: [[0, target], [maxOffered, target]] }
    ]
  })

  const nullSteps = result.nullSwitch ? result.nullSwitch.steps.filter((/** @type {any} */ s) => s.offeredRate <= maxOffered * 1.5) : []
  out['achieved-vs-offered'] = lineChart({
    title: 'Achieved vs offered rate',
    xLabel: 'offered rate (transfers/s)',
    yLabel: 'completed transfers/s (steady state)',
    series: [
      { name: 'ideal', dash: true, points: [[0, 0], [maxOffered, maxOffered]] },
      ...labels.map((l) => ({ name: l, points: perRate(runsOf(l), (s) => s.achievedRate) })),
      ...(nullSteps.length ? [{ name: 'null switch', dash: true, points: nullSteps.map((/** @type {any} */ s) => /** @type {[number, number]} */ ([s.offeredRate, s.achievedRate])) }] : [])
    ]
  })

  const first = mainRuns.find((/** @type {any} */ r) => r.steps.length)
  if (first) {
    out['latency-over-time'] = lineChart({
      title: `p99 per second of each step (${main}, repetition ${first.rep})`,
      xLabel: 'second of the step (intended send time)',
      yLabel: 'p99 latency (ms)',
      logY: true,
      series: first.steps.map((/** @type {any} */ s) => ({ name: `${s.offeredRate}/s`, points: s.timeline.filter((/** @type {any} */ b) => b.p99 !== null).map((/** @type {any} */ b) => [b.second + 0.5, b.p99]) }))
    })
  }

  out['throughput-vs-concurrency'] = lineChart({
    title: 'Throughput vs concurrency (Little\'s law: rate × mean latency)',
    xLabel: 'transfers in flight',
    yLabel: 'completed transfers/s',
    series: labels.map((l) => ({ name: l, points: pairs(runsOf(l), (s) => s.concurrency, (s) => s.achievedRate) }))
  })

  out['latency-vs-concurrency'] = lineChart({
    title: 'p99 latency vs concurrency (Little\'s law)',
    xLabel: 'transfers in flight',
    yLabel: 'p99 latency (ms)',
    logY: true,
    series: labels.map((l) => ({ name: l, points: pairs(runsOf(l), (s) => s.concurrency, (s) => s.latency.p99) }))
  })
  return out
}

module.exports = { charts }
