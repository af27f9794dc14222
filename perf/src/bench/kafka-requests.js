'use strict'

// Kafka requests per transfer, by API, from the switch's own counters
// (`switchyard_kafka_requests_total`, docs/metrics.md) read before and after
// a step in every switch process. Messages per transfer (accounting.js) say
// what the pipeline carries; requests say how many round trips it took.

const { parseExposition } = require('../../../shared/src/metrics/exposition')
const { round } = require('./schedule')
const { scrapeAll } = require('./scrape')

const METRIC = 'switchyard_kafka_requests_total'

/**
 * Requests by API in one exposition text, all clients together.
 * @param {string} text @returns {Record<string, number>}
 */
function parseKafkaRequests (text) {
  /** @type {Record<string, number>} */
  const out = {}
  for (const { name, labels, value } of parseExposition(text, { requireType: false }).samples) {
    if (name === METRIC && labels.api) out[labels.api] = (out[labels.api] || 0) + value
  }
  return out
}

/**
 * Every process's requests by API, summed; null when a process did not answer.
 * @param {string[]} urls /metrics of the API and every handler process
 * @returns {Promise<Record<string, number> | null>}
 */
async function scrapeKafkaRequests (urls) {
  const texts = await scrapeAll(urls)
  return texts && requestsOfTexts(texts)
}

/**
 * Requests by API in several processes' metrics texts, summed.
 * @param {string[]} texts @returns {Record<string, number>}
 */
function requestsOfTexts (texts) {
  /** @type {Record<string, number>} */
  const out = {}
  for (const text of texts) for (const [api, n] of Object.entries(parseKafkaRequests(text))) out[api] = (out[api] || 0) + n
  return out
}

/**
 * Requests per transfer between two scrapes: in all, and by API (largest first);
 * null when the processes count none.
 * @param {Record<string, number> | null} before @param {Record<string, number> | null} after @param {number} transfers
 * @returns {{ perTransfer: number, byApi: Record<string, number> } | null}
 */
function requestsDelta (before, after, transfers) {
  // No counters at all: a switch (or an older commit) that does not count its requests.
  if (!before || !after || !transfers || !Object.keys(after).length) return null
  const grown = Object.entries(after)
    .map(([api, n]) => /** @type {[string, number]} */ ([api, n - (before[api] || 0)]))
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1])
  const total = grown.reduce((sum, [, n]) => sum + n, 0)
  return { perTransfer: round(total / transfers, 3), byApi: Object.fromEntries(grown.map(([api, n]) => [api, round(n / transfers, 3)])) }
}

/**
 * "2.1 (Fetch 1.1, Produce 0.6, …)" for the step's console line; APIs that round to 0 per transfer are left out.
 * @param {ReturnType<typeof requestsDelta>} r
 */
const requestsLine = (r) => (r ? `${r.perTransfer} (${Object.entries(r.byApi).filter(([, n]) => n > 0).map(([api, n]) => `${api} ${n}`).join(', ')})` : '')

module.exports = { parseKafkaRequests, requestsOfTexts, scrapeKafkaRequests, requestsDelta, requestsLine }
