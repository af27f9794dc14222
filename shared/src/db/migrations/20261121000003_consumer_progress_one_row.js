'use strict'

// consumer_progress keeps one row per consumer group and topic-partition (the
// latest applied chunk) instead of one per chunk: see shared/src/kafka/progress.js.

/** @param {import('knex').Knex} knex */
exports.up = async (knex) => {
  await knex.raw(`DELETE p FROM consumer_progress p
    JOIN consumer_progress q ON q.consumer_group = p.consumer_group AND q.topic = p.topic
     AND q.kafka_partition = p.kafka_partition AND q.last_offset > p.last_offset`)
  await knex.raw('ALTER TABLE consumer_progress DROP PRIMARY KEY, ADD PRIMARY KEY (consumer_group, topic, kafka_partition)')
}

/** @param {import('knex').Knex} knex */
exports.down = async (knex) => {
  await knex.raw('ALTER TABLE consumer_progress DROP PRIMARY KEY, ADD PRIMARY KEY (consumer_group, topic, kafka_partition, last_offset)')
}
