'use strict'

const http = require('node:http')

/**
 * A tiny /health endpoint for processes that run handlers without the API
 * (one per Kubernetes pod), so probes see broker and database connectivity;
 * /livez, which answers while the process runs (a liveness probe's: an
 * outage of Kafka or MySQL is waited out, never a reason to restart); with
 * `metrics`, also /metrics for Prometheus.
 * @param {{ port: number, host: string, health: () => Promise<{ status: string }>,
 *   metrics?: { scrape: () => Promise<{ contentType: string, body: string }> } }} opts
 * @returns {Promise<http.Server>}
 */
function startHealthServer ({ port, host, health, metrics }) {
  const server = http.createServer((req, res) => {
    if (metrics && req.method === 'GET' && req.url === '/metrics') {
      metrics.scrape().then(({ contentType, body }) => {
        res.writeHead(200, { 'content-type': contentType }).end(body)
      }, (err) => {
        res.writeHead(500, { 'content-type': 'text/plain' }).end(`could not collect metrics: ${err.message}`)
      })
      return
    }
    if (req.method === 'GET' && req.url === '/livez') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"OK"}')
      return
    }
    if (req.method !== 'GET' || (req.url !== '/health' && req.url !== '/health/')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"status":"NOT_FOUND"}')
      return
    }
    health().then((report) => {
      res.writeHead(report.status === 'OK' ? 200 : 502, { 'content-type': 'application/json' }).end(JSON.stringify(report))
    }, (err) => {
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'DOWN', error: err.message }))
    })
  })
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => resolve(server))
  })
}

module.exports = { startHealthServer }
