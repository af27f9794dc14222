'use strict'

// Room for the ledger. Every transfer a campaign runs stays in its database:
// about 6.5 KB of InnoDB pages per complete transfer (the transfer, its state
// and position changes, the fulfilment, three callbacks with their headers,
// bodies and attempts). The full profile can add up to ~3.7 million, and
// campaign after campaign the bench ledger once grew to 48 GB and filled the
// disk; MariaDB then stalls every writer in the middle of a step. So a
// campaign first makes sure the filesystem holding the database can take the
// most it can add: switchyard_bench, the bench's own scratch ledger, is
// started afresh when it is in the way; anything else stops the campaign
// with the figures, before it starts. Seeding checks the same way for the
// ~2.3 KB each seeded transfer takes (no callbacks).

const fs = require('node:fs')
const { warmupLoadRate } = require('./profiles')

const BYTES_PER_TRANSFER = 6500
const BYTES_PER_SEEDED_TRANSFER = 2300
const MARGIN_BYTES = 2 * 1024 ** 3

/** @param {number} bytes */
const gb = (bytes) => `${(bytes / 1024 ** 3).toFixed(1)} GB`

/**
 * The most transfers a campaign can run: every step of every ladder (a ladder
 * usually stops earlier), the steps measured again, warm-ups, single transfers.
 * @param {{ rates: number[], stepMs: number, warmup: number, warmupLoadMs?: number, single: number, reps: number, configs: string[], contendedRetries: number }} profile
 */
function maxTransfers (profile) {
  const perStep = (/** @type {number} */ rate) => Math.ceil(rate * profile.stepMs / 1000)
  const ladder = profile.rates.reduce((sum, rate) => sum + perStep(rate), 0) + profile.contendedRetries * perStep(Math.max(0, ...profile.rates))
  const warmupLoad = profile.warmupLoadMs && profile.rates.length ? Math.ceil(warmupLoadRate(profile.rates) * profile.warmupLoadMs / 1000) : 0
  return profile.reps * profile.configs.length * (profile.warmup + warmupLoad + profile.single + ladder)
}

/** What a campaign asks for: its ledger and the margin. @param {Parameters<typeof maxTransfers>[0]} profile */
const bytesNeeded = (profile) => maxTransfers(profile) * BYTES_PER_TRANSFER + MARGIN_BYTES

/** @param {string} dir */
function freeBytes (dir) {
  const s = fs.statfsSync(dir)
  return s.bavail * s.bsize
}

/**
 * Throws, with the figures, unless `dir`'s filesystem has `bytes` (plus a margin) free.
 * @param {{ dir: string, bytes: number, what: string, free?: (dir: string) => number }} opts what: what needs the room
 */
function requireRoom ({ dir, bytes, what, free = freeBytes }) {
  const available = free(dir)
  if (available >= bytes + MARGIN_BYTES) return
  throw new Error(`not enough disk: ${gb(available)} free in ${dir}; ${what} may take ~${gb(bytes)}, and ${gb(MARGIN_BYTES)} should stay free`)
}

/**
 * Makes room for a campaign or explains why there is none.
 * @param {{ profile: Parameters<typeof maxTransfers>[0], dir: string, dbName: string,
 *   databaseBytes: () => Promise<number>, reset: (() => Promise<void>) | null, say: (m: string) => void,
 *   free?: (dir: string) => number }} opts reset: starts the database afresh, null when it must be kept
 */
async function ensureRoom ({ profile, dir, dbName, databaseBytes, reset, say, free = freeBytes }) {
  const available = free(dir)
  if (available >= bytesNeeded(profile)) return { reset: false }
  const transfers = maxTransfers(profile)
  const bytes = transfers * BYTES_PER_TRANSFER
  const what = `the campaign's up to ${transfers.toLocaleString('en')} transfers in ${dbName}`
  const held = gb(await databaseBytes())
  if (!reset) {
    requireRoom({ dir, bytes, what: `${what} (which holds ${held}; drop it if its ledger is no longer needed)`, free })
    return { reset: false }
  }
  say(`${gb(available)} free where MariaDB keeps its data, and ${what} may take ~${gb(bytes)}: starting ${dbName} afresh (it held ${held})`)
  await reset()
  requireRoom({ dir, bytes, what: `even after starting ${dbName} afresh, ${what}`, free })
  return { reset: true }
}

module.exports = { ensureRoom, requireRoom, maxTransfers, bytesNeeded, BYTES_PER_TRANSFER, BYTES_PER_SEEDED_TRANSFER }
