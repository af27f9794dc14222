'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { startDiskWatch, stallsWithin, stallsPhrase, stalledMisses } = require('../../src/bench/disk-watch')

describe('disk watch', () => {
  test('a step counts the stalls that overlap it, and only the part of each inside it as time stalled', () => {
    const events = [
      { at: 900, ms: 200 }, // starts before the step, ends 100 ms into it
      { at: 1500, ms: 317 },
      { at: 2500, ms: 40 }, // after the step
      { at: 1990, ms: 30 } // runs past its end
    ]
    expect(stallsWithin(events, 1000, 2000)).toEqual({ count: 3, maxMs: 317, stalledMs: 427, stalledShare: 0.427 })
    expect(stallsWithin(events, 3000, 4000)).toEqual({ count: 0, maxMs: 0, stalledMs: 0, stalledShare: 0 })
    expect(stallsWithin([], 5, 5)).toEqual({ count: 0, maxMs: 0, stalledMs: 0, stalledShare: 0 })
  })

  test('a step line names the stalls, and says nothing when there were none', () => {
    expect(stallsPhrase({ count: 3, maxMs: 317 }, 20)).toBe('3 disk stalls ≥ 20 ms, longest 317 ms')
    expect(stallsPhrase({ count: 1, maxMs: 25 }, 20)).toBe('1 disk stall ≥ 20 ms, longest 25 ms')
    expect(stallsPhrase({ count: 0, maxMs: 0 }, 20)).toBe('')
    expect(stallsPhrase(null, 20)).toBe('')
  })

  test('a run counts the steps that kept up but missed the p99 bound with a disk stall as long as the bound in them', () => {
    const step = (/** @type {any} */ o) => ({ meetsTarget: false, success: 1, backlog: { growing: false }, sent: 10, scheduled: 10, valid: true, disk: { count: 1, maxMs: 0 }, ...o })
    const steps = [
      step({ meetsTarget: true, disk: { count: 1, maxMs: 300 } }), // met the target despite a stall
      step({ disk: { count: 2, maxMs: 662 } }),
      step({ disk: { count: 1, maxMs: 100 } }), // as long as the bound
      step({ disk: { count: 1, maxMs: 60 } }), // shorter: the miss is not put on the disk
      step({ disk: null }), // no watcher
      step({ backlog: { growing: true }, disk: { count: 1, maxMs: 900 } }) // did not keep up: not a latency miss
    ]
    expect(stalledMisses(steps, 100)).toEqual({ latencyMisses: 4, withStall: 2 })
    expect(stalledMisses([], 100)).toEqual({ latencyMisses: 0, withStall: 0 })
  })

  test('the watcher makes durable writes in its directory until stopped, and leaves nothing behind', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'disk-watch-'))
    try {
      // Every sample reported: the worker really writes, times and reports.
      const watch = startDiskWatch(dir, { intervalMs: 5, thresholdMs: 0 })
      const from = Date.now()
      await new Promise((resolve) => setTimeout(resolve, 400))
      expect(fs.readdirSync(dir)).toHaveLength(1)
      const seen = watch.within(from, Date.now())
      expect(seen.count).toBeGreaterThan(5)
      expect(seen.stalledMs).toBeGreaterThan(0)
      await watch.stop()
      expect(watch.overall().failed).toBeNull()
      expect(fs.readdirSync(dir)).toEqual([])
      const after = watch.overall().count
      await new Promise((resolve) => setTimeout(resolve, 50))
      expect(watch.overall().count).toBe(after)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
