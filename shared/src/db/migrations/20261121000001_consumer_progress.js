'use strict'

// What each consumer group has applied, per topic-partition, and what it
// emitted for it. Written in the same transaction as the handler's effects,
// so after a crash a redelivered record is recognised (offset ≤ last_offset)
// and its outgoing messages are re-emitted instead of being applied again
// (DESIGN.md rule 1).

/** @param {import('knex').Knex} knex */
exports.up = async (knex) => {
  await knex.schema.createTable('consumer_progress', (t) => {
    t.string('consumer_group', 128).notNullable()
    t.string('topic', 190).notNullable()
    t.integer('kafka_partition').unsigned().notNullable()
    t.bigInteger('first_offset').notNullable()
    t.bigInteger('last_offset').notNullable()
    // The messages produced for records first_offset..last_offset, as JSON.
    t.specificType('outgoing', 'LONGTEXT').notNullable()
    t.timestamp('created_at', { precision: 3 }).notNullable().defaultTo(knex.raw('CURRENT_TIMESTAMP(3)'))
    t.primary(['consumer_group', 'topic', 'kafka_partition', 'last_offset'])
  })
}

/** @param {import('knex').Knex} knex */
exports.down = async (knex) => {
  await knex.schema.dropTable('consumer_progress')
}
