'use strict'

// A transfer's state as an ENUM of its ten values instead of VARCHAR(32), in
// `transfer` and in its history. Code reads and writes the same strings.
//
// A VARCHAR state is as long as its value, so every change of state changed
// the row's length, and InnoDB cannot update a row whose length changes in
// place: it deletes the record and inserts it again, and the redo log gets
// the whole row (docs/performance.md, thirty-fifth round). Two of a
// transfer's three row updates change nothing but the state (RESERVED,
// COMMITTED). An ENUM is one byte whatever the value: those two updates are
// in place, and redo per row for them fell from ~0.8–1.0 KB to ~0.25 KB, and
// the row and its (state, expiration) index entry are shorter. A state the
// list does not have is refused (strict mode) rather than stored: a new
// state needs a migration that appends it, which is instant. The list is
// frozen here, not read from handlers/src/common/states.js, which a test
// keeps equal to it.
//
// Changing a column's type copies the table: on a large ledger the upgrade
// holds writes to these two tables for as long (docs/kubernetes.md).

const STATES = ['RECEIVED_PREPARE', 'RESERVED', 'RECEIVED_FULFIL', 'RECEIVED_ERROR', 'COMMITTED',
  'ABORTED_REJECTED', 'ABORTED_ERROR', 'EXPIRED_PREPARED', 'EXPIRED_RESERVED', 'INVALID']

const TABLES = ['transfer', 'transfer_state_change']

/** @param {import('knex').Knex} knex */
exports.up = async (knex) => {
  const list = STATES.map((s) => `'${s}'`).join(', ')
  for (const table of TABLES) await knex.raw(`ALTER TABLE ?? MODIFY state ENUM(${list}) NOT NULL`, [table])
}

/** @param {import('knex').Knex} knex */
exports.down = async (knex) => {
  for (const table of TABLES) await knex.raw('ALTER TABLE ?? MODIFY state VARCHAR(32) NOT NULL', [table])
}

exports.STATES = STATES
