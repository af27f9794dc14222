'use strict'

// Kafka requests per transfer in every bench step: the switch processes'
// request counters read before and after the step, summed over clients and
// processes, divided by the step's transfers.

const http = require('node:http')
const { parseKafkaRequests, scrapeKafkaRequests, requestsDelta, requestsLine } = require('../../src/bench/kafka-requests')

const exposition = (rows) => [
  '# HELP switchyard_kafka_requests_total Requests sent to Kafka, by client and API.',
  '# TYPE switchyard_kafka_requests_total counter',
  ...rows.map(([client, api, n]) => `switchyard_kafka_requests_total{client="${client}",api="${api}"} ${n}`),
  '# TYPE switchyard_messages_total counter',
  'switchyard_messages_total{stage="prepare"} 99'
].join('\n')

test('requests by API, all clients of a process together', () => {
  expect(parseKafkaRequests(exposition([['prepare', 'Fetch', 10], ['position', 'Fetch', 5], ['prepare', 'OffsetCommit', 2], ['producer', 'Produce', 7]])))
    .toEqual({ Fetch: 15, OffsetCommit: 2, Produce: 7 })
  expect(parseKafkaRequests('')).toEqual({})
})

test('per transfer: what grew during the step, largest first; APIs that did not grow are left out', () => {
  const before = { Fetch: 100, Produce: 40, Heartbeat: 3, Metadata: 2 }
  const after = { Fetch: 400, Produce: 190, Heartbeat: 4, Metadata: 2, OffsetCommit: 10 }
  const d = requestsDelta(before, after, 100)
  expect(d).toEqual({ perTransfer: 4.61, byApi: { Fetch: 3, Produce: 1.5, OffsetCommit: 0.1, Heartbeat: 0.01 } })
  expect(Object.keys(d.byApi)).toEqual(['Fetch', 'Produce', 'OffsetCommit', 'Heartbeat'])
  expect(requestsLine(d)).toBe('4.61 (Fetch 3, Produce 1.5, OffsetCommit 0.1, Heartbeat 0.01)')
  expect(requestsDelta(null, after, 100)).toBeNull()
  expect(requestsDelta(before, after, 0)).toBeNull()
  // A commit of the switch from before the counter existed.
  expect(requestsDelta({}, {}, 100)).toBeNull()
  expect(requestsLine(null)).toBe('')
  // One Metadata request in 10,000 transfers stays in the JSON, not on the line.
  const rare = requestsDelta({ Fetch: 0, Metadata: 0 }, { Fetch: 20000, Metadata: 1 }, 10000)
  expect(rare.byApi).toEqual({ Fetch: 2, Metadata: 0 })
  expect(requestsLine(rare)).toBe('2 (Fetch 2)')
})

test('a scrape sums every process, and is null when one does not answer', async () => {
  const bodies = [exposition([['producer', 'Produce', 4]]), exposition([['prepare', 'Fetch', 6], ['producer', 'Produce', 1]])]
  const server = http.createServer((req, res) => {
    const i = Number(req.url.split('/')[1])
    if (!bodies[i]) { res.statusCode = 503; res.end(); return }
    res.end(bodies[i])
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const base = `http://127.0.0.1:${server.address().port}`
  try {
    expect(await scrapeKafkaRequests([`${base}/0/metrics`, `${base}/1/metrics`])).toEqual({ Produce: 5, Fetch: 6 })
    expect(await scrapeKafkaRequests([`${base}/0/metrics`, `${base}/2/metrics`])).toBeNull()
  } finally {
    await new Promise((resolve) => server.close(resolve))
  }
})
