'use strict'

const { ensureRoom, requireRoom, maxTransfers, bytesNeeded, BYTES_PER_TRANSFER } = require('../../src/bench/disk')
const { PROFILES } = require('../../src/bench/profiles')

const GB = 1024 ** 3
const profile = { rates: [100, 200], stepMs: 10000, warmup: 30, single: 50, reps: 2, configs: ['batched', 'traced'], contendedRetries: 1 }

describe('bench disk room', () => {
  test('the most transfers a campaign can run counts every step, the retried steps, warm-ups and single transfers', () => {
    // per run: 30 + 50 + (1,000 + 2,000) + 1 retry × 2,000 = 5,080; 2 reps × 2 configs
    expect(maxTransfers(profile)).toBe(4 * 5080)
    expect(bytesNeeded(profile)).toBe(4 * 5080 * BYTES_PER_TRANSFER + 2 * GB)
    // The warm-up load: half the first rate (50/s) for 4 s, 200 more per run.
    expect(maxTransfers({ ...profile, warmupLoadMs: 4000 })).toBe(4 * 5280)
    // The full profile, if every ladder went to 2,000/s: ~3.7 million transfers, ~24 GB of ledger.
    expect(maxTransfers(PROFILES.full)).toBeGreaterThan(3.6e6)
    expect(maxTransfers(PROFILES.full)).toBeLessThan(3.8e6)
  })

  test('with room enough, nothing is dropped', async () => {
    const reset = jest.fn(async () => {})
    const out = await ensureRoom({ profile, dir: '/data', dbName: 'switchyard_bench', databaseBytes: async () => 40 * GB, reset, say: () => {}, free: () => 100 * GB })
    expect(out).toEqual({ reset: false })
    expect(reset).not.toHaveBeenCalled()
  })

  test('the scratch ledger is started afresh when the disk is short, and the operator is told why', async () => {
    let free = 0.5 * GB
    const said = /** @type {string[]} */ ([])
    const reset = jest.fn(async () => { free += 40 * GB })
    const out = await ensureRoom({ profile, dir: '/data', dbName: 'switchyard_bench', databaseBytes: async () => 40 * GB, reset, say: (m) => said.push(m), free: () => free })
    expect(out).toEqual({ reset: true })
    expect(reset).toHaveBeenCalledTimes(1)
    expect(said.join('\n')).toMatch(/0\.5 GB free .* up to 20,320 transfers in switchyard_bench may take ~0\.1 GB: starting switchyard_bench afresh \(it held 40\.0 GB\)/)
  })

  test('a database that must be kept, or a disk still short after the reset, stops the campaign before it starts', async () => {
    await expect(ensureRoom({ profile, dir: '/data', dbName: 'switchyard_bench_seeded', databaseBytes: async () => 25 * GB, reset: null, say: () => {}, free: () => GB }))
      .rejects.toThrow(/not enough disk: 1\.0 GB free in \/data; .*switchyard_bench_seeded \(which holds 25\.0 GB; drop it/)
    await expect(ensureRoom({ profile, dir: '/data', dbName: 'switchyard_bench', databaseBytes: async () => 0.1 * GB, reset: async () => {}, say: () => {}, free: () => GB }))
      .rejects.toThrow(/1\.0 GB free in \/data; even after starting switchyard_bench afresh/)
  })

  test('seeding asks for its room up front', () => {
    expect(() => requireRoom({ dir: '/data', bytes: 23 * GB, what: 'seeding 10,000,000 transfers', free: () => 20 * GB }))
      .toThrow('not enough disk: 20.0 GB free in /data; seeding 10,000,000 transfers may take ~23.0 GB, and 2.0 GB should stay free')
    expect(() => requireRoom({ dir: '/data', bytes: 23 * GB, what: 'seeding', free: () => 26 * GB })).not.toThrow()
  })
})
