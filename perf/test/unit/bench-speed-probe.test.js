'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { workProbe, parallelProbe, fsyncProbe, againstReference, REFERENCE_WORK_MS } = require('../../src/bench/speed-probe')
const { wakeProbe } = require('../../src/bench/wake-probe')

/** Processes now running the wake probe's echo child. */
const echoChildren = () => fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).filter((pid) => {
  try { return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('wake-probe.js\0--echo') } catch { return false }
})

describe('machine probes', () => {
  // speedProbe itself is left to the bench: inside jest's module sandbox its
  // loop runs an order of magnitude slower; the workers here run it outside.
  test('the all-cores probe runs the single-thread work on every thread at once and reports the slowest', async () => {
    const one = await parallelProbe({ threads: 1, tries: 1 })
    const two = await parallelProbe({ threads: 2, tries: 1 })
    expect(one).toBeGreaterThan(0)
    expect(two).toBeGreaterThan(0)
    expect(one).toBeLessThan(10000)
  })

  test('the fsync probe makes small writes durable in the directory it is given, and leaves nothing behind', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fsync-probe-'))
    try {
      const ms = fsyncProbe(dir, { count: 20 })
      expect(ms.p50).toBeGreaterThanOrEqual(0)
      expect(ms.p99).toBeGreaterThanOrEqual(ms.p50)
      expect(ms.max).toBeGreaterThanOrEqual(ms.p99)
      expect(fs.readdirSync(dir)).toEqual([])
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  test('the wake probe times round trips to another process, back to back and from idle, and stops that process', async () => {
    const us = await wakeProbe({ count: 200, warmup: 20, idleCount: 30, idleGapMs: 2 })
    expect(us.p50).toBeGreaterThan(0)
    expect(us.p99).toBeGreaterThanOrEqual(us.p50)
    expect(us.p50).toBeLessThan(1e6)
    // From idle: each round trip a gap after the last answer (the gap itself not timed).
    expect(us.idle.gapMs).toBe(2)
    expect(us.idle.p50).toBeGreaterThan(0)
    expect(us.idle.p99).toBeGreaterThanOrEqual(us.idle.p50)
    expect(us.idle.p50).toBeLessThan(1e6)
    const deadline = Date.now() + 5000
    while (echoChildren().length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
    expect(echoChildren()).toEqual([])
  })

  test('the wake probe fails, instead of waiting for ever, when its echo process dies', async () => {
    const probe = wakeProbe({ count: 10, warmup: 0, idleCount: 1000, idleGapMs: 20 })
    const deadline = Date.now() + 5000
    while (!echoChildren().length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
    await new Promise((resolve) => setTimeout(resolve, 200))
    for (const pid of echoChildren()) process.kill(Number(pid), 'SIGKILL')
    // Reset or closed, depending on when the kill lands: either way an error, not a hang.
    await expect(probe).rejects.toThrow(/closed the connection|ECONNRESET/)
  })

  test('the work probe times switch-shaped work, the best of its tries', () => {
    const ms = workProbe(2, 2000)
    expect(ms).toBeGreaterThan(0)
    expect(ms).toBeLessThan(60000)
  })

  test('a work probe far from the README\'s machine says how far, and that the figures compare only at the same speed', () => {
    expect(againstReference(REFERENCE_WORK_MS)).toEqual({ ratio: 1, note: null })
    expect(againstReference(REFERENCE_WORK_MS * 1.15).note).toBeNull() // the drift of an hour
    const slow = againstReference(REFERENCE_WORK_MS * 5)
    expect(slow.ratio).toBe(5)
    expect(slow.note).toBe(`The work probe (${REFERENCE_WORK_MS * 5} ms, against ${REFERENCE_WORK_MS} ms) says this machine is 5× slower than the one the README's figures come from: compare these figures with runs at the same speed only, not with the README's.`)
    expect(againstReference(REFERENCE_WORK_MS / 2).note).toMatch(/2× faster than/)
  })
})
