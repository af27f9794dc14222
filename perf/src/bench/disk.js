'use strict'

// Room for the ledger. Every transfer a campaign runs stays in its database:
// about 6 KB of InnoDB pages per complete transfer (the transfer, its state
// and position changes, the fulfilment, three callbacks with their headers,
// bodies and attempts). The full profile can add up to ~2.6 million, and
// campaign after campaign the bench ledger once grew to 48 GB and filled the
// disk; MariaDB then stalls every writer in the middle of a step. So a
// campaign first makes sure the filesystem holding the database can take the
// most it can add: switchyard_bench, the bench's own scratch ledger, is
// started afresh when it is in the way; anything else stops the campaign
// with the figures, before it starts.

const fs = require('node:fs')

const BYTES_PER_TRANSFER = 6500
const MARGIN_BYTES = 2 * 1024 ** 3

/** @param {number} bytes */
const gb = (bytes) => `${(bytes / 1024 ** 3).toFixed(1)} GB`

/**
 * The most transfers a campaign can run: every step of every ladder (a ladder
 * usually stops earlier), the steps measured again, warm-ups, single transfers.
 * @param {{ rates: number[], stepMs: number, warmup: number, single: number, reps: number, configs: string[], contendedRetries: number }} profile
 */
function maxTransfers (profile) {
  const perStep = (/** @type {number} */ rate) => Math.ceil(rate * profile.stepMs / 1000)
  const ladder = profile.rates.reduce((sum, rate) => sum + perStep(rate), 0) + profile.contendedRetries * perStep(Math.max(0, ...profile.rates))
  return profile.reps * profile.configs.length * (profile.warmup + profile.single + ladder)
}

/** @param {Parameters<typeof maxTransfers>[0]} profile */
const bytesNeeded = (profile) => maxTransfers(profile) * BYTES_PER_TRANSFER + MARGIN_BYTES

/** @param {string} dir */
function freeBytes (dir) {
  const s = fs.statfsSync(dir)
  return s.bavail * s.bsize
}

/**
 * Makes room or explains why there is none.
 * @param {{ profile: Parameters<typeof maxTransfers>[0], dir: string, dbName: string,
 *   databaseBytes: () => Promise<number>, reset: (() => Promise<void>) | null, say: (m: string) => void,
 *   free?: (dir: string) => number }} opts reset: starts the database afresh, null when it must be kept
 */
async function ensureRoom ({ profile, dir, dbName, databaseBytes, reset, say, free = freeBytes }) {
  const need = bytesNeeded(profile)
  const before = free(dir)
  if (before >= need) return { reset: false }
  const what = `up to ${maxTransfers(profile).toLocaleString('en')} transfers (~${gb(need - MARGIN_BYTES)} of ledger, plus ${gb(MARGIN_BYTES)} to spare)`
  const held = await databaseBytes()
  if (reset) {
    say(`${gb(before)} free where MariaDB keeps its data, and this campaign may add ${what}: starting ${dbName} afresh (it held ${gb(held)})`)
    await reset()
    const after = free(dir)
    if (after >= need) return { reset: true }
    throw new Error(`not enough disk for the benchmark: ${gb(after)} free in ${dir} after starting ${dbName} afresh; the campaign may add ${what}`)
  }
  throw new Error(`not enough disk for the benchmark: ${gb(before)} free in ${dir}; the campaign may add ${what} to ${dbName} (which holds ${gb(held)}). Free some space, or drop that database if its ledger is no longer needed`)
}

module.exports = { ensureRoom, maxTransfers, bytesNeeded, BYTES_PER_TRANSFER }
