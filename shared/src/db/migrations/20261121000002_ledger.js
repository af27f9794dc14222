'use strict'

// The ledger: participants and their accounts, positions and limits, callback
// endpoints, transfers with their state history, position history, and the
// callback outbox with every delivery attempt. Amounts are DECIMAL(18,4)
// (DESIGN.md rule 6); times are DATETIME(3) in UTC.

const AMOUNT = [18, 4]

/** @param {import('knex').Knex} knex */
exports.up = async (knex) => {
  const now = knex.raw('CURRENT_TIMESTAMP(3)')

  await knex.schema.createTable('participant', (t) => {
    t.increments('participant_id').primary()
    t.string('name', 128).notNullable().unique()
    t.boolean('is_active').notNullable().defaultTo(true)
    t.datetime('created_at', { precision: 3 }).notNullable().defaultTo(now)
  })

  // One row per participant, currency and ledger account type (POSITION,
  // SETTLEMENT, HUB_MULTILATERAL_SETTLEMENT, HUB_RECONCILIATION).
  await knex.schema.createTable('participant_account', (t) => {
    t.increments('account_id').primary()
    t.integer('participant_id').unsigned().notNullable().references('participant.participant_id')
    t.specificType('currency', 'CHAR(3)').notNullable()
    t.string('ledger_account_type', 40).notNullable()
    t.boolean('is_active').notNullable().defaultTo(true)
    t.datetime('created_at', { precision: 3 }).notNullable().defaultTo(now)
    t.unique(['participant_id', 'currency', 'ledger_account_type'], { indexName: 'participant_account_unique' })
  })

  // Positive value = the account owes. A POSITION account's value includes
  // the amounts reserved for transfers in flight (as in Mojaloop); a
  // SETTLEMENT account's value is minus the liquidity deposited.
  await knex.schema.createTable('participant_position', (t) => {
    t.integer('account_id').unsigned().primary().references('participant_account.account_id')
    t.decimal('value', ...AMOUNT).notNullable().defaultTo(0)
    t.bigInteger('change_seq').unsigned().notNullable().defaultTo(0)
    t.datetime('updated_at', { precision: 3 }).notNullable().defaultTo(now)
  })

  await knex.schema.createTable('participant_limit', (t) => {
    t.integer('account_id').unsigned().notNullable().references('participant_account.account_id')
    t.string('limit_type', 32).notNullable()
    t.decimal('value', ...AMOUNT).notNullable()
    t.datetime('updated_at', { precision: 3 }).notNullable().defaultTo(now)
    t.primary(['account_id', 'limit_type'])
  })

  await knex.schema.createTable('participant_endpoint', (t) => {
    t.integer('participant_id').unsigned().notNullable().references('participant.participant_id')
    t.string('endpoint_type', 64).notNullable()
    t.string('value', 512).notNullable()
    t.datetime('updated_at', { precision: 3 }).notNullable().defaultTo(now)
    t.primary(['participant_id', 'endpoint_type'])
  })

  await knex.schema.createTable('transfer', (t) => {
    t.string('transfer_id', 36).primary()
    t.string('payer_fsp', 128).notNullable()
    t.string('payee_fsp', 128).notNullable()
    t.integer('payer_account_id').unsigned().nullable()
    t.integer('payee_account_id').unsigned().nullable()
    t.decimal('amount', ...AMOUNT).notNullable()
    t.specificType('currency', 'CHAR(3)').notNullable()
    t.string('ilp_condition', 48).notNullable()
    t.datetime('expiration', { precision: 3 }).notNullable()
    // sha256 of the canonical request: the same id with another body is 3106.
    t.specificType('request_hash', 'CHAR(64)').notNullable()
    t.string('state', 32).notNullable()
    t.string('error_code', 4).nullable()
    t.string('error_description', 256).nullable()
    t.string('fulfilment', 48).nullable()
    t.specificType('fulfil_hash', 'CHAR(64)').nullable()
    t.datetime('completed_at', { precision: 3 }).nullable()
    t.boolean('payee_reserved').notNullable().defaultTo(false)
    // Duplicates that arrived while the transfer was in flight: each is
    // answered with the final state once it is reached.
    t.integer('pending_payer_resends').unsigned().notNullable().defaultTo(0)
    t.integer('pending_payee_resends').unsigned().notNullable().defaultTo(0)
    // The timeout handler's lease: replicas claim disjoint sets of expired
    // transfers; an unfinished claim is taken over after the lease lapses.
    t.specificType('expiry_claim', 'CHAR(36)').nullable()
    t.datetime('expiry_claimed_at', { precision: 3 }).nullable()
    t.datetime('created_at', { precision: 3 }).notNullable().defaultTo(now)
    t.datetime('updated_at', { precision: 3 }).notNullable().defaultTo(now)
    t.index(['state', 'expiration'], 'transfer_state_expiration_idx')
    t.index(['expiry_claim'], 'transfer_expiry_claim_idx')
  })

  await knex.schema.createTable('transfer_state_change', (t) => {
    t.bigIncrements('id').primary()
    t.string('transfer_id', 36).notNullable().index()
    t.string('state', 32).notNullable()
    t.string('reason', 512).nullable()
    t.datetime('created_at', { precision: 3 }).notNullable().defaultTo(now)
  })

  await knex.schema.createTable('participant_position_change', (t) => {
    t.bigIncrements('id').primary()
    t.integer('account_id').unsigned().notNullable().index()
    t.string('transfer_id', 36).notNullable().index()
    t.decimal('change', ...AMOUNT).notNullable()
    t.decimal('value_after', ...AMOUNT).notNullable()
    t.datetime('created_at', { precision: 3 }).notNullable().defaultTo(now)
  })

  // Funds in / funds out recorded through the admin API.
  await knex.schema.createTable('funds_transfer', (t) => {
    t.string('transfer_id', 36).primary()
    t.integer('participant_id').unsigned().notNullable()
    t.integer('account_id').unsigned().notNullable()
    t.string('action', 40).notNullable()
    t.decimal('amount', ...AMOUNT).notNullable()
    t.specificType('currency', 'CHAR(3)').notNullable()
    t.string('state', 32).notNullable()
    t.string('reason', 512).nullable()
    t.string('external_reference', 256).nullable()
    t.datetime('created_at', { precision: 3 }).notNullable().defaultTo(now)
    t.datetime('updated_at', { precision: 3 }).notNullable().defaultTo(now)
  })

  // The callback outbox: one row per callback to deliver. The id is derived
  // from the Kafka record that asked for it, so a redelivery cannot add a row.
  await knex.schema.createTable('callback', (t) => {
    t.string('callback_id', 190).primary()
    t.string('participant', 128).notNullable()
    t.string('transfer_id', 36).nullable().index()
    t.string('endpoint_type', 64).notNullable()
    t.string('method', 8).notNullable()
    t.string('path', 256).notNullable()
    t.specificType('headers', 'TEXT').notNullable()
    t.specificType('body', 'MEDIUMTEXT').nullable()
    t.string('status', 16).notNullable()
    t.integer('attempts').unsigned().notNullable().defaultTo(0)
    t.datetime('next_attempt_at', { precision: 3 }).notNullable().defaultTo(now)
    t.string('claimed_by', 64).nullable()
    t.datetime('claim_until', { precision: 3 }).nullable()
    t.string('last_error', 512).nullable()
    t.datetime('created_at', { precision: 3 }).notNullable().defaultTo(now)
    t.datetime('delivered_at', { precision: 3 }).nullable()
    t.index(['status', 'claim_until'], 'callback_status_claim_idx')
  })

  await knex.schema.createTable('callback_attempt', (t) => {
    t.bigIncrements('id').primary()
    t.string('callback_id', 190).notNullable().index()
    t.integer('attempt').unsigned().notNullable()
    t.string('url', 1024).nullable()
    t.integer('status_code').nullable()
    t.string('error', 512).nullable()
    t.integer('duration_ms').unsigned().notNullable()
    t.datetime('created_at', { precision: 3 }).notNullable().defaultTo(now)
  })
}

/** @param {import('knex').Knex} knex */
exports.down = async (knex) => {
  for (const table of ['callback_attempt', 'callback', 'funds_transfer', 'participant_position_change', 'transfer_state_change',
    'transfer', 'participant_endpoint', 'participant_limit', 'participant_position', 'participant_account', 'participant']) {
    await knex.schema.dropTableIfExists(table)
  }
}
