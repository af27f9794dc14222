'use strict'

// What a new user sees: `npm start` brings up the stack and every service,
// prints where the API is, and /health reports Kafka and MySQL connected;
// SIGTERM shuts down cleanly. What an operator sees with MySQL away: /health
// says so, while /readyz keeps the api-adapter ready and participants' requests
// are still taken.

const { startProcess } = require('../../../test/support/processes')
const { testConfig, unique } = require('../../../test/support/config')
const { createTestKafka } = require('../../../test/support/kafka')
const { topicName } = require('../../../shared/src/kafka')
const { createTopics } = require('../../../scripts/stack/index')
const { waitUntil } = require('../../../test/support/wait')
const { createClient } = require('../support/http')
const { transferHeaders, prepareBody } = require('../support/transfers')

test('npm start serves /health with broker and datastore OK, and stops cleanly on SIGTERM', async () => {
  const app = startProcess('scripts/start.js', [], { API_PORT: '0', ADMIN_PORT: '0', HANDLERS: 'all' })
  try {
    const [, url] = await app.waitForOutput(/FSPIOP API\s+(http:\/\/\S+)/)
    const res = await fetch(`${url}/health`)
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body).toMatchObject({
      status: 'OK',
      versionNumber: expect.any(String),
      services: [{ name: 'broker', status: 'OK' }, { name: 'datastore', status: 'OK' }]
    })
  } finally {
    expect(await app.stop()).toEqual({ code: 0, signal: null })
  }
})

test('/health answers 502 and names the datastore when MySQL is unreachable', async () => {
  const app = startProcess('api-adapter/src/server.js', [], { API_PORT: '0', ADMIN_PORT: '0', LOG_LEVEL: 'info', DB_PORT: '1', STACK: 'off' })
  try {
    const [, url] = await app.waitForOutput(/"url":"(http:\/\/[^"]+)"/)
    const res = await fetch(`${url}/health`)
    expect(res.status).toBe(502)
    expect((await res.json()).services).toEqual([{ name: 'broker', status: 'OK' }, { name: 'datastore', status: 'DOWN' }])
  } finally {
    await app.stop()
  }
})

test('with MySQL unreachable, /readyz answers 200 while /health answers 502, and POST /transfers is still published and answered 202', async () => {
  // Topics of this test's own, which the api-adapter publishes to.
  const prefix = `${unique('nodb')}.`
  const config = testConfig({ KAFKA_TOPIC_PREFIX: prefix, KAFKA_PARTITIONS: '1' })
  await createTopics(config)
  const testKafka = createTestKafka(config)
  await testKafka.connect()
  const app = startProcess('api-adapter/src/server.js', [], { API_PORT: '0', ADMIN_PORT: '0', LOG_LEVEL: 'info', DB_PORT: '1', STACK: 'off', KAFKA_TOPIC_PREFIX: prefix })
  try {
    const prepared = await testKafka.collect(topicName(config, 'prepare'))
    const [, url] = await app.waitForOutput(/"url":"(http:\/\/[^"]+)"/)
    const client = createClient(url)

    const health = await client.request({ url: '/health' })
    expect([health.statusCode, health.json().services]).toEqual([502, [{ name: 'broker', status: 'OK' }, { name: 'datastore', status: 'DOWN' }]])
    const ready = await client.request({ url: '/readyz' })
    expect([ready.statusCode, ready.json()]).toEqual([200, expect.objectContaining({ status: 'OK', services: [{ name: 'broker', status: 'OK' }] })])

    // The participant API's request path needs Kafka only: the prepare is on
    // its topic for the prepare handler to take once MySQL is back.
    const body = prepareBody()
    const res = await client.request({ method: 'POST', url: '/transfers', headers: transferHeaders(), payload: body })
    expect([res.statusCode, res.body]).toEqual([202, ''])
    const message = await waitUntil(() => prepared.messages.find((m) => m.key === body.transferId), { what: `the prepare of ${body.transferId}` })
    expect(message.value).toMatchObject({ type: 'prepare', transferId: body.transferId, payload: body })
  } finally {
    await app.stop()
    await testKafka.close()
  }
})
