'use strict'

// How fast this machine is right now. A virtual machine's CPU is shared with
// neighbours the guest cannot see (they do not always show as steal time):
// on the 2-core VM these figures come from, the same loop took 2.1 s at one
// time of day and 2.4 s an hour later, and every latency moved with it. The
// campaign times fixed pieces of single-threaded work before each run and
// prints them, so a reader can tell a slower program from a slower machine:
// work shaped like the switch's own (workProbe), which weighs one machine
// against another, and a tight loop (speedProbe), kept for drift and for
// earlier results. Two more probes see what one thread does not:
//
// - the same work on every core at once (parallelProbe): two vCPUs can be
//   hyperthreads of one physical core, or share it with a neighbour, and then
//   both together are slower than either alone;
// - small writes made durable where the database keeps its files
//   (fsyncProbe): every commit waits for one, and a VM's disk drifts too.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const crypto = require('node:crypto')
const { Worker } = require('node:worker_threads')
const { performance } = require('node:perf_hooks')
const { round } = require('./schedule')
const { exactPercentile } = require('./histogram')

/**
 * The shortest of `tries` timings of `work`, so that a single interruption
 * does not count.
 * @param {number} tries @param {() => void} work
 * @returns {number} milliseconds, to 0.1
 */
function bestOf (tries, work) {
  let best = Infinity
  for (let t = 0; t < tries; t++) {
    const t0 = performance.now()
    work()
    best = Math.min(best, performance.now() - t0)
  }
  return round(best, 1)
}

/**
 * Times a fixed, deterministic piece of work (integer arithmetic and sha256,
 * 81 ms on the AMD EPYC VM of the README's earlier figures: REFERENCE_SPEED_MS).
 * @param {number} [tries]
 * @returns {number} milliseconds, the best of `tries`
 */
function speedProbe (tries = 3) {
  const block = Buffer.alloc(64 * 1024, 7)
  return bestOf(tries, () => {
    let x = 0
    for (let i = 0; i < 150e6; i++) x = (x + Math.imul(i, 2654435761)) | 0
    let digest = Buffer.from([x & 0xff])
    for (let i = 0; i < 1000; i++) digest = crypto.createHash('sha256').update(block).update(digest).digest()
  })
}

/** A prepare's body as a participant sends it (transferId filled in per iteration). */
const PREPARE = Object.freeze({
  transferId: '',
  payerFsp: 'payerfsp',
  payeeFsp: 'payeefsp',
  amount: Object.freeze({ amount: '123.45', currency: 'USD' }),
  ilpPacket: 'A'.repeat(320),
  condition: 'GRzLaTP7DJ9t4P-a_BA0WA9wzzlsugf00-Tn6kESAfM',
  expiration: '2026-12-07T12:00:00.000Z'
})

/**
 * Times a fixed piece of work shaped like the switch's own, which is what a
 * comparison between machines must weigh: per item, a transfer's JSON
 * written and parsed, a sha256 of a small text (the request hash), a
 * statement's text built with an escaped value, and a Map that keeps
 * recent ids; about 140 ms on the machine the README's figures come from
 * (REFERENCE_WORK_MS). speedProbe's tight integer loop is not that: on an
 * Intel Xeon VM the probe read 275–330 ms against the 81 ms of the AMD EPYC
 * VM of the README's earlier figures (its integer loop alone ~280 ms,
 * its sha256 48–55 ms), while the switch's CPU per transfer at
 * 1,000/s was 1.6–1.8 ms against 1.4–1.6 (docs/performance.md,
 * thirty-ninth round). It stays, for drift within a campaign and for
 * comparison with earlier results.
 * @param {number} [tries]
 * @param {number} [items]
 * @returns {number} milliseconds, the best of `tries`
 */
function workProbe (tries = 3, items = 20000) {
  return bestOf(tries, () => {
    const recent = new Map()
    for (let i = 0; i < items; i++) {
      const id = `${i.toString(16).padStart(8, '0')}-7a1c-4f00-8b00-${(i * 7919).toString(16).padStart(12, '0')}`
      const text = JSON.stringify({ ...PREPARE, transferId: id })
      const body = JSON.parse(text)
      const hash = crypto.createHash('sha256').update(text).digest('base64url')
      recent.set(id, `INSERT INTO transfer (transfer_id, amount, currency, hash) VALUES ('${body.transferId.replace(/[\0\n\r'"\\]/g, '\\$&')}', ${body.amount.amount}, '${body.amount.currency}', '${hash}')`)
      if (recent.size > 1000) recent.delete(recent.keys().next().value)
    }
  })
}

/** speedProbe() in a worker thread (best of its tries, as on the main thread). @param {number} tries @returns {Promise<number>} its milliseconds */
function probeInWorker (tries) {
  return new Promise((resolve, reject) => {
    const code = `require('node:worker_threads').parentPort.postMessage(require(${JSON.stringify(__filename)}).speedProbe(${Number(tries)}))`
    const worker = new Worker(code, { eval: true })
    worker.once('message', resolve)
    worker.once('error', reject)
  })
}

/**
 * The same work on `threads` threads at once (default: one per core), each
 * taking the best of its own tries as speedProbe() does (a fresh thread's
 * first try runs unoptimised code); the slowest thread's time. Equal to
 * speedProbe() when the cores do not slow each other down.
 * @param {{ threads?: number, tries?: number }} [opts]
 * @returns {Promise<number>} milliseconds
 */
async function parallelProbe ({ threads = os.availableParallelism(), tries = 3 } = {}) {
  const times = await Promise.all(Array.from({ length: threads }, () => probeInWorker(tries)))
  return round(Math.max(...times), 1)
}

/**
 * One write of `block` at the start of `fd`'s file, made durable (fdatasync):
 * what a database commit waits for. Blocks its thread.
 * @param {number} fd @param {Buffer} block
 * @returns {number} milliseconds
 */
function timedDurableWrite (fd, block) {
  const t0 = performance.now()
  fs.writeSync(fd, block, 0, block.length, 0)
  fs.fdatasyncSync(fd)
  return performance.now() - t0
}

/**
 * `count` 4 KB writes to one file in `dir`, each followed by fdatasync —
 * what a database commit waits for — timed one by one.
 * @param {string} dir on the filesystem to measure
 * @param {{ count?: number }} [opts]
 * @returns {{ p50: number, p99: number, max: number }} milliseconds
 */
function fsyncProbe (dir, { count = 200 } = {}) {
  fs.mkdirSync(dir, { recursive: true })
  const file = path.join(dir, `fsync-probe-${process.pid}.tmp`)
  const block = crypto.randomBytes(4096)
  const fd = fs.openSync(file, 'w')
  /** @type {number[]} */
  const times = []
  try {
    for (let i = 0; i < count; i++) times.push(timedDurableWrite(fd, block))
  } finally {
    fs.closeSync(fd)
    fs.rmSync(file, { force: true })
  }
  // Microsecond resolution: a disk that acknowledges flushes from a cache answers in tens of them.
  const at = (/** @type {number} */ p) => round(/** @type {number} */ (exactPercentile(times, p)), 3)
  return { p50: at(50), p99: at(99), max: at(100) }
}

/**
 * The speed probe on the machine the README's first figures came from (an
 * AMD EPYC VM): 80.3–82.2 ms. Kept to read earlier results by; machines are
 * compared with the work probe (REFERENCE_WORK_MS).
 */
const REFERENCE_SPEED_MS = 81

/**
 * The work probe on the machine the README's figures come from (the
 * 7 December 2026 profile, a 2 vCPU Intel Xeon VM), idle: 134.6–143.4 ms.
 */
const REFERENCE_WORK_MS = 140

/**
 * How this machine compares with the one the README's figures come from, by
 * the work probe, and what that means for reading its figures when it is far
 * off (a 20% drift already moves the max rate by a ladder step;
 * docs/performance.md).
 * @param {number} workMs a work probe
 * @returns {{ ratio: number, note: string | null }} ratio: how many times slower (below 1: faster)
 */
function againstReference (workMs) {
  const ratio = round(workMs / REFERENCE_WORK_MS, 2)
  const off = ratio >= 1.2 ? `${ratio}× slower than` : ratio <= 0.83 ? `${round(1 / ratio, 2)}× faster than` : null
  return {
    ratio,
    note: off && `The work probe (${workMs} ms, against ${REFERENCE_WORK_MS} ms) says this machine is ${off} the one the README's figures come from: compare these figures with runs at the same speed only, not with the README's.`
  }
}

module.exports = { speedProbe, workProbe, parallelProbe, fsyncProbe, timedDurableWrite, againstReference, REFERENCE_SPEED_MS, REFERENCE_WORK_MS }
