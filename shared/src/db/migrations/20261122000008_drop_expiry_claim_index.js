'use strict'

// The timeout handler finds a claim's transfers by primary key (the claim's
// candidates) since this migration, so the index on transfer.expiry_claim
// goes. It was NULL for almost every row, and InnoDB orders equal keys by
// the primary key: every new transfer, with its random id, landed on a
// random leaf of it. On a 10 M-transfer ledger that was 0.6 GB that a
// buffer pool holding the id-keyed indexes did not hold, and about one page
// read from disk per transfer (docs/benchmarks.md). Dropping an index is an
// in-place change in InnoDB: no table copy, writes go on.

/** @param {import('knex').Knex} knex */
exports.up = async (knex) => {
  const [rows] = await knex.raw("SHOW INDEX FROM transfer WHERE Key_name = 'transfer_expiry_claim_idx'")
  if (rows.length) await knex.schema.alterTable('transfer', (t) => { t.dropIndex(['expiry_claim'], 'transfer_expiry_claim_idx') })
}

/** @param {import('knex').Knex} knex */
exports.down = async (knex) => {
  await knex.schema.alterTable('transfer', (t) => { t.index(['expiry_claim'], 'transfer_expiry_claim_idx') })
}
