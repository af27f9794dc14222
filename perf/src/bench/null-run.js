'use strict'

// The generator's own ceiling: the same generator and simulators against the
// null switch (a separate process), on the same rate ladder logic.

const { startSimulators } = require('../load/fast-participants')
const { runOpenStep } = require('./generator')
const { summarizeStep, ladderDone, maxSustainable, maxKeptUp } = require('./schedule')
const { startProcess, root } = require('./sut')
const acc = require('./accounting')
const { warmupLoadRate } = require('./profiles')

/** @param {string} callbacks @param {string} mode @param {(m: string) => void} say */
async function spawnNullSwitch (callbacks, mode, say, timeoutMs = 60000) {
  const proc = startProcess(root, 'perf/src/bench/null-switch.js', {}, say, [], ['--callbacks', callbacks, '--mode', mode])
  // It prints {"url": …} once listening.
  const deadline = Date.now() + timeoutMs
  let line
  while (!(line = proc.output().split('\n').find((l) => l.startsWith('{')))) {
    if (!proc.running()) throw new Error(`null switch exited: ${proc.output().slice(-2000)}`)
    if (Date.now() > deadline) {
      await proc.stop()
      throw new Error(`null switch not listening after ${timeoutMs} ms: ${proc.output().slice(-2000)}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return {
    url: /** @type {string} */ (JSON.parse(line).url),
    pid: proc.pid,
    /** At once when it has already exited. */
    stop: () => proc.stop()
  }
}

/**
 * @param {{ profile: any, say: (m: string) => void }} opts
 */
async function nullRun ({ profile, say }) {
  const sim = await startSimulators({ prefix: 'null', payers: profile.payers, payees: profile.payees, apiUrl: 'http://127.0.0.1:1' })
  const ns = await spawnNullSwitch(sim.base, profile.nullMode, say)
  sim.setApi(ns.url)
  const steps = []
  const targets = { ...profile.targets, p99TargetMs: profile.nullP99TargetMs }
  /** @type {{ rate: number, durationMs: number, sent: number } | null} */
  let warmup = null
  try {
    // Unmeasured, as before the switch's ladders (run.js): a fresh null switch
    // and the generator's first thousand transfers run code V8 has not
    // compiled yet, and a first step from cold carried it (p99 15–72 ms at
    // 1,000/s where 2,000/s, measured next, had 12–24 ms).
    if (profile.warmupLoadMs > 0 && profile.nullRates.length) {
      const rate = warmupLoadRate(profile.nullRates)
      const w = await runOpenStep({ sim, apiUrl: ns.url, rate, durationMs: profile.warmupLoadMs, maxBacklogMs: profile.maxBacklogMs, drainTimeoutMs: profile.drainTimeoutMs })
      warmup = { rate, durationMs: profile.warmupLoadMs, sent: w.sent }
    }
    for (const rate of profile.nullRates) {
      const quietBefore = await acc.waitForQuiet({ generator: process.pid, nullSwitch: ns.pid }, profile.quiet)
      const cpuA = acc.cpuSnapshot({ generator: process.pid, nullSwitch: ns.pid })
      const r = await runOpenStep({ sim, apiUrl: ns.url, rate, durationMs: profile.nullStepMs, maxBacklogMs: profile.maxBacklogMs, drainTimeoutMs: profile.drainTimeoutMs })
      const cpu = acc.cpuDelta(cpuA, acc.cpuSnapshot({ generator: process.pid, nullSwitch: ns.pid }), r.committedCallbacks)
      const step = { ...summarizeStep(r, targets), generator: { sendLag: r.sendLag, acceptLatency: r.acceptLatency, httpErrors: r.httpErrors }, cpu, quietBefore, contended: cpu.otherProcessesPctCore > profile.quiet.maxOtherPctCore }
      steps.push(step)
      say(`null switch: ${rate}/s → ${step.achievedRate}/s, p50 ${step.latency.p50} p99 ${step.latency.p99} ms, send lag p99 ${r.sendLag.p99} ms, ` +
        `generator ${cpu.processes.generator && cpu.processes.generator.pctCore}% of a core${step.meetsTarget ? '' : ` — ${step.reasons.join('; ')}`}`)
      if (ladderDone(steps, profile.stopAfterFailures, targets.minSuccess)) break
    }
  } finally {
    await ns.stop()
    await sim.close()
  }
  return { mode: profile.nullMode, p99TargetMs: profile.nullP99TargetMs, warmup, steps, ceilingRate: maxSustainable(steps), keptUpRate: maxKeptUp(steps, targets.minSuccess) }
}

module.exports = { nullRun }
