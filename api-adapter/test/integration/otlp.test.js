'use strict'

// Traces reach an OTLP/HTTP collector: the API runs as its own process with
// TRACING_EXPORTERS=otlp pointed at a collector served by this test, and the
// collector receives the request's span under the process's service name.

const http = require('node:http')
const { startProcess } = require('../../../test/support/processes')
const { waitUntil } = require('../../../test/support/wait')

test('spans are exported over OTLP/HTTP with the process\'s service name', async () => {
  /** @type {any[]} */
  const exports = []
  const collector = http.createServer((req, res) => {
    let body = ''
    req.on('data', (d) => { body += d })
    req.on('end', () => {
      exports.push({ path: req.url, contentType: req.headers['content-type'], body: JSON.parse(body) })
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise((resolve) => collector.listen(0, '127.0.0.1', () => resolve(undefined)))
  const port = /** @type {import('node:net').AddressInfo} */ (collector.address()).port
  const api = startProcess('api-adapter/src/server.js', [], {
    API_PORT: '0', ADMIN_PORT: '0', LOG_LEVEL: 'info', TRACING_EXPORTERS: 'otlp', TRACING_OTLP_ENDPOINT: `http://127.0.0.1:${port}/v1/traces`
  })
  try {
    const [, url] = await api.waitForOutput(/"url":"(http:\/\/[^"]+)"/)
    // A malformed request is still a traced request.
    const res = await fetch(`${url}/transfers`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    expect(res.status).toBe(400)
    expect(await api.stop()).toEqual({ code: 0, signal: null })
    await waitUntil(() => exports.length > 0, { what: 'an OTLP export' })
    const spans = exports.flatMap((e) => e.body.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans.map((s) => ({
      service: rs.resource.attributes.find((a) => a.key === 'service.name').value.stringValue,
      name: s.name,
      attributes: Object.fromEntries(s.attributes.map((a) => [a.key, Object.values(a.value)[0]]))
    })))))
    expect(exports[0].path).toBe('/v1/traces')
    expect(spans).toContainEqual(expect.objectContaining({
      service: 'switchyard-api', name: 'POST /transfers', attributes: expect.objectContaining({ 'http.request.method': 'POST', 'url.path': '/transfers' })
    }))
  } finally {
    await api.stop()
    collector.close()
  }
})
