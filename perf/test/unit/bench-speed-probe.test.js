'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { parallelProbe, fsyncProbe } = require('../../src/bench/speed-probe')

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
})
