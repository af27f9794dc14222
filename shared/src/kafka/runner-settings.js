'use strict'

// The consumer runner's knobs, read from the configuration in one place, and
// the timing of its retries.

const MAX_BACKOFF_MS = 10000

/**
 * @typedef {{ maxAttempts: number, backoffMs: number, maxWaitMs: number, maxBytesPerPartition: number,
 *   partitionsConcurrently: number, sessionTimeoutMs: number, maxBatchSize: number, offsetCommitIntervalMs: number, lingerMs: number }} RunnerSettings
 */

/** @param {Readonly<Record<string, any>>} config @returns {RunnerSettings} */
function runnerSettings (config) {
  return {
    maxAttempts: config.KAFKA_HANDLER_MAX_ATTEMPTS,
    backoffMs: config.KAFKA_RETRY_BACKOFF_MS,
    maxWaitMs: config.KAFKA_MAX_WAIT_MS,
    maxBytesPerPartition: config.KAFKA_BATCH_MAX_BYTES,
    partitionsConcurrently: config.KAFKA_PARTITIONS_CONCURRENTLY,
    sessionTimeoutMs: config.KAFKA_SESSION_TIMEOUT_MS,
    maxBatchSize: config.KAFKA_MAX_BATCH_SIZE,
    offsetCommitIntervalMs: config.KAFKA_OFFSET_COMMIT_INTERVAL_MS,
    lingerMs: config.KAFKA_LINGER_MS
  }
}

/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * The first retry comes almost at once (a deadlock victim usually succeeds
 * straight away); later ones back off exponentially with jitter.
 * @param {number} attempt @param {number} base
 */
const backoff = (attempt, base) => (attempt === 1
  ? Math.random() * 5
  : Math.min(MAX_BACKOFF_MS, base * 2 ** (attempt - 2)) * (0.5 + Math.random() / 2))

/** @param {import('kafkajs').Kafka} kafka */
async function describeClusterId (kafka) {
  const admin = kafka.admin()
  await admin.connect()
  try {
    return (await admin.describeCluster()).clusterId
  } finally {
    await admin.disconnect()
  }
}

module.exports = { runnerSettings, sleep, backoff, describeClusterId }
