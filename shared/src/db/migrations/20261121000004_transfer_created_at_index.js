'use strict'

// The prepare handler warms its duplicate filter with the last hours of
// transfer ids (WHERE created_at > …): without this index that is a full
// scan, 10 s on a 10-million-transfer ledger, at every start.

/** @param {import('knex').Knex} knex */
exports.up = async (knex) => {
  await knex.schema.alterTable('transfer', (t) => { t.index(['created_at'], 'transfer_created_at_idx') })
}

/** @param {import('knex').Knex} knex */
exports.down = async (knex) => {
  await knex.schema.alterTable('transfer', (t) => { t.dropIndex(['created_at'], 'transfer_created_at_idx') })
}
