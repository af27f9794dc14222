'use strict'

// The disk's stalls, seen while the benchmark runs. A durable commit waits
// for its fsync, and on a virtual machine the host's disk now and then takes
// a few hundred milliseconds to answer one, whatever the guest is doing: on
// the 2-core Firecracker VM of 28 November 2026, a loop of fdatasync calls on
// an idle machine answered in 0.1 ms at the median and stalled past 20 ms
// five to fifteen times in 30 s, up to 720 ms. Every commit in such a moment
// waits as long, and the switch's stages share one commit lane, so all of
// them stop together: at 100/s a stall of half a second holds up some fifty
// transfers, 2.5% of a 20 s step — the p99 cannot be under 100 ms. The
// one-off fsync probe before each run (speed-probe.js) takes a fraction of a
// second and rarely sees one; this watcher samples all campaign long, in a
// worker thread (a blocking fdatasync would stop the generator's event loop),
// one 4 KB write and fdatasync every `intervalMs` on the filesystem where
// MariaDB keeps its files. A stall delays the sample that meets it, so each
// one longer than the interval is seen. Each step reports the stalls within
// it (count, longest, time stalled), beside its latency.

const fs = require('node:fs')
const path = require('node:path')
const { Worker, isMainThread, parentPort, workerData } = require('node:worker_threads')
const { round, keptUp } = require('./schedule')
const { timedDurableWrite } = require('./speed-probe')

/**
 * The stalls that overlap [fromMs, toMs], clipped to it.
 * @param {Array<{ at: number, ms: number }>} events stalls: start (epoch ms) and duration
 * @param {number} fromMs @param {number} toMs epoch ms
 * @returns {{ count: number, maxMs: number, stalledMs: number, stalledShare: number }}
 *   stalledShare: the fraction of the window spent in stalls
 */
function stallsWithin (events, fromMs, toMs) {
  let count = 0
  let maxMs = 0
  let stalledMs = 0
  for (const e of events) {
    const start = Math.max(e.at, fromMs)
    const end = Math.min(e.at + e.ms, toMs)
    if (end <= start) continue
    count++
    maxMs = Math.max(maxMs, e.ms)
    stalledMs += end - start
  }
  const span = toMs - fromMs
  return { count, maxMs: round(maxMs, 1), stalledMs: round(stalledMs, 1), stalledShare: span > 0 ? round(stalledMs / span, 4) : 0 }
}

/** "3 disk stalls ≥ 20 ms, longest 317 ms": '' when there were none. @param {{ count: number, maxMs: number } | null | undefined} s @param {number} thresholdMs */
function stallsPhrase (s, thresholdMs) {
  if (!s || !s.count) return ''
  return `${s.count} disk ${s.count === 1 ? 'stall' : 'stalls'} ≥ ${thresholdMs} ms, longest ${s.maxMs} ms`
}

/**
 * A campaign's total (startDiskWatch().overall()) in a phrase: "disk stalls
 * ≥ 20 ms: 44 in 152.7 s (3.16% of the time, longest 661.9 ms)"; null when the
 * watcher failed.
 * @param {{ thresholdMs: number, count: number, seconds: number, stalledShare: number, maxMs: number, failed: string | null }} d
 */
function overallPhrase (d) {
  if (d.failed) return null
  return `disk stalls ≥ ${d.thresholdMs} ms: ${d.count} in ${d.seconds} s (${round(d.stalledShare * 100, 2)}% of the time, longest ${d.maxMs} ms)`
}

/**
 * Of a run's steps that kept up but missed the target (its p99 bound: they
 * kept up), how many had a disk stall at least as long as the bound in them:
 * the p99 of such a step cannot be read as the switch's.
 * @param {any[]} steps @param {number} p99TargetMs @param {number} [minSuccess]
 * @returns {{ latencyMisses: number, withStall: number }}
 */
function stalledMisses (steps, p99TargetMs, minSuccess) {
  const misses = steps.filter((s) => !s.meetsTarget && keptUp(s, minSuccess))
  return { latencyMisses: misses.length, withStall: misses.filter((s) => s.disk && s.disk.maxMs >= p99TargetMs).length }
}

/**
 * The worker's loop: a durable write every `intervalMs` until the stop flag is
 * set, each one that took `thresholdMs` or more posted to the main thread.
 * Atomics.wait sleeps without an event loop, and wakes at once on stop().
 * @param {{ file: string, intervalMs: number, thresholdMs: number, control: SharedArrayBuffer }} opts
 */
function watchLoop ({ file, intervalMs, thresholdMs, control }) {
  const flag = new Int32Array(control)
  const block = Buffer.alloc(4096, 7)
  const fd = fs.openSync(file, 'w')
  try {
    while (Atomics.load(flag, 0) === 0) {
      const at = Date.now()
      const ms = timedDurableWrite(fd, block)
      if (ms >= thresholdMs) /** @type {import('node:worker_threads').MessagePort} */ (parentPort).postMessage({ at, ms })
      Atomics.wait(flag, 0, 0, intervalMs)
    }
  } finally {
    fs.closeSync(fd)
    fs.rmSync(file, { force: true })
  }
}

/**
 * Starts sampling. stop() ends the worker and removes its file.
 * @param {string} dir on the filesystem to watch
 * @param {{ intervalMs?: number, thresholdMs?: number }} [opts]
 */
function startDiskWatch (dir, { intervalMs = 20, thresholdMs = 20 } = {}) {
  fs.mkdirSync(dir, { recursive: true })
  const control = new SharedArrayBuffer(4)
  const flag = new Int32Array(control)
  const file = path.join(dir, `disk-watch-${process.pid}.tmp`)
  const worker = new Worker(__filename, { workerData: { diskWatch: { file, intervalMs, thresholdMs, control } } })
  // Never what keeps the benchmark's process alive.
  worker.unref()
  /** @type {Array<{ at: number, ms: number }>} */
  const events = []
  /** @type {string | null} */
  let failed = null
  worker.on('message', (e) => events.push(e))
  worker.on('error', (err) => { failed = String(err && err.message) })
  const startedAt = Date.now()
  const ended = new Promise((resolve) => worker.once('exit', resolve))
  return {
    intervalMs,
    thresholdMs,
    /** @param {number} fromMs @param {number} toMs */
    within: (fromMs, toMs) => stallsWithin(events, fromMs, toMs),
    /** Everything since the start, and what went wrong if the watcher did. */
    overall: () => ({ intervalMs, thresholdMs, seconds: round((Date.now() - startedAt) / 1000, 1), ...stallsWithin(events, startedAt, Date.now()), failed }),
    async stop () {
      Atomics.store(flag, 0, 1)
      Atomics.notify(flag, 0)
      await ended
    }
  }
}

if (!isMainThread && workerData && workerData.diskWatch) watchLoop(workerData.diskWatch)

module.exports = { startDiskWatch, stallsWithin, stallsPhrase, overallPhrase, stalledMisses }
