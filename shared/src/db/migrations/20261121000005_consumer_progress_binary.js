'use strict'

// consumer_progress.outgoing becomes binary: the stored messages are
// compressed once they are large (shared/src/kafka/progress.js). Text rows
// written before stay readable as they are (their bytes are the JSON).

const { outgoingText } = require('../../kafka/progress')

/** @param {import('knex').Knex} knex */
exports.up = async (knex) => {
  await knex.raw('ALTER TABLE consumer_progress MODIFY outgoing LONGBLOB NOT NULL')
}

/** @param {import('knex').Knex} knex */
exports.down = async (knex) => {
  // Back to text, uncompressed first: the earlier code reads JSON text only.
  const rows = await knex('consumer_progress').select('consumer_group', 'topic', 'kafka_partition', 'outgoing')
  // One row per consumer group and partition: few, so each is rewritten.
  for (const r of rows) {
    const text = outgoingText(r.outgoing)
    await knex('consumer_progress')
      .where({ consumer_group: r.consumer_group, topic: r.topic, kafka_partition: r.kafka_partition })
      .update({ outgoing: Buffer.from(text, 'utf8') })
  }
  await knex.raw('ALTER TABLE consumer_progress MODIFY outgoing LONGTEXT NOT NULL')
}
