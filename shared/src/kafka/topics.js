'use strict'

// One table of topics and what their messages are keyed by. The key decides
// the partition, and the partition decides who may write what: position
// messages are keyed by the account whose position moves, so one partition
// (one consumer) owns each account (DESIGN.md rule 3).

/** @typedef {{ name: string, key: string, description: string }} TopicSpec */

/** @type {Record<string, TopicSpec>} */
const TOPICS = Object.freeze({
  prepare: { name: 'transfer-prepare', key: 'transferId', description: 'POST /transfers commands from the api-adapter.' },
  fulfil: { name: 'transfer-fulfil', key: 'transferId', description: 'PUT /transfers/{id}, PUT /transfers/{id}/error and GET /transfers/{id}, ordered per transfer.' },
  position: { name: 'transfer-position', key: 'account', description: 'Position changes: reserve (payer account), commit (payee account), release (payer account).' },
  notification: { name: 'notification', key: 'participant', description: 'Callbacks to deliver to participants.' },
  exchange: { name: 'exchange', key: 'currencyPair', description: 'Exchange requests and cancellations.' }
})

const DLQ_SUFFIX = '.dlq'

/**
 * The full topic name of a logical topic.
 * @param {import('../config').Config} config
 * @param {keyof typeof TOPICS} logical
 */
function topicName (config, logical) {
  const spec = TOPICS[logical]
  if (!spec) throw new Error(`unknown topic ${String(logical)}`)
  return `${config.KAFKA_TOPIC_PREFIX}${spec.name}`
}

/** @param {string} topic */
const deadLetterTopic = (topic) => `${topic}${DLQ_SUFFIX}`

/**
 * Every topic the installation needs, with its dead-letter topic.
 * @param {import('../config').Config} config
 */
function allTopicNames (config) {
  return Object.keys(TOPICS).flatMap((t) => {
    const name = topicName(config, /** @type {keyof typeof TOPICS} */ (t))
    return [name, deadLetterTopic(name)]
  })
}

/**
 * Creates missing topics; existing ones are left as they are.
 * @param {import('kafkajs').Admin} admin
 * @param {string[]} names
 * @param {{ partitions: number, replicationFactor: number }} opts
 */
async function ensureTopics (admin, names, { partitions, replicationFactor }) {
  const existing = new Set(await admin.listTopics())
  const missing = names.filter((n) => !existing.has(n))
  if (!missing.length) return []
  await admin.createTopics({
    waitForLeaders: true,
    topics: missing.map((topic) => ({
      topic,
      numPartitions: topic.endsWith(DLQ_SUFFIX) ? 1 : partitions,
      replicationFactor
    }))
  })
  return missing
}

module.exports = { TOPICS, topicName, deadLetterTopic, allTopicNames, ensureTopics }
