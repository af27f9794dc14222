'use strict'

// The generator's own ceiling: the same generator and simulators against the
// null switch (a separate process), on the same rate ladder logic.

const path = require('node:path')
const { spawn } = require('node:child_process')
const { startSimulators } = require('../load/fast-participants')
const { runOpenStep } = require('./generator')
const { summarizeStep, ladderDone, maxSustainable } = require('./schedule')
const acc = require('./accounting')

/** @param {string} callbacks @param {string} mode */
async function spawnNullSwitch (callbacks, mode) {
  const proc = spawn(process.execPath, [path.join(__dirname, 'null-switch.js'), '--callbacks', callbacks, '--mode', mode], { stdio: ['ignore', 'pipe', 'inherit'] })
  const url = await new Promise((resolve, reject) => {
    let out = ''
    proc.stdout.on('data', (d) => {
      out += d
      const line = out.split('\n').find((l) => l.startsWith('{'))
      if (line) resolve(JSON.parse(line).url)
    })
    proc.once('exit', (code) => reject(new Error(`null switch exited with ${code}`)))
  })
  return {
    url: /** @type {string} */ (url),
    pid: /** @type {number} */ (proc.pid),
    stop: () => new Promise((resolve) => { proc.once('exit', resolve); proc.kill('SIGTERM') })
  }
}

/**
 * @param {{ profile: any, say: (m: string) => void }} opts
 */
async function nullRun ({ profile, say }) {
  const sim = await startSimulators({ prefix: 'null', payers: profile.payers, payees: profile.payees, apiUrl: 'http://127.0.0.1:1' })
  const ns = await spawnNullSwitch(sim.base, profile.nullMode)
  sim.setApi(ns.url)
  const steps = []
  const targets = { ...profile.targets, p99TargetMs: profile.nullP99TargetMs }
  try {
    for (const rate of profile.nullRates) {
      const quietBefore = await acc.waitForQuiet({ generator: process.pid, nullSwitch: ns.pid }, profile.quiet)
      const cpuA = acc.cpuSnapshot({ generator: process.pid, nullSwitch: ns.pid })
      const r = await runOpenStep({ sim, apiUrl: ns.url, rate, durationMs: profile.nullStepMs, maxBacklogMs: profile.maxBacklogMs, drainTimeoutMs: profile.drainTimeoutMs })
      const cpu = acc.cpuDelta(cpuA, acc.cpuSnapshot({ generator: process.pid, nullSwitch: ns.pid }), r.committedCallbacks)
      const step = { ...summarizeStep(r, targets), generator: { sendLag: r.sendLag, acceptLatency: r.acceptLatency, httpErrors: r.httpErrors }, cpu, quietBefore, contended: cpu.otherProcessesPctCore > profile.quiet.maxOtherPctCore }
      steps.push(step)
      say(`null switch: ${rate}/s → ${step.achievedRate}/s, p50 ${step.latency.p50} p99 ${step.latency.p99} ms, send lag p99 ${r.sendLag.p99} ms, ` +
        `generator ${cpu.processes.generator && cpu.processes.generator.pctCore}% of a core${step.meetsTarget ? '' : ` — ${step.reasons.join('; ')}`}`)
      if (ladderDone(steps, profile.stopAfterFailures)) break
    }
  } finally {
    await ns.stop()
    await sim.close()
  }
  return { mode: profile.nullMode, p99TargetMs: profile.nullP99TargetMs, steps, ceilingRate: maxSustainable(steps) }
}

module.exports = { nullRun }
