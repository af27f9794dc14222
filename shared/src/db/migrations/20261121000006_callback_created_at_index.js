'use strict'

// Delivered callbacks are deleted once they are older than
// CALLBACK_RETENTION_HOURS (handlers/src/notification/retention.js), oldest
// first: this index finds them without a scan. created_at never changes after
// the insert, so the index costs the hot path one append per callback.

/** @param {import('knex').Knex} knex */
exports.up = async (knex) => {
  await knex.schema.alterTable('callback', (t) => { t.index(['created_at'], 'callback_created_at_idx') })
}

/** @param {import('knex').Knex} knex */
exports.down = async (knex) => {
  await knex.schema.alterTable('callback', (t) => { t.dropIndex(['created_at'], 'callback_created_at_idx') })
}
