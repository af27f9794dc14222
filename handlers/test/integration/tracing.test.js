'use strict'

// What a performance engineer sees: Switchyard started as `npm start` does
// (one process) and as operators run it (the API and the handlers apart),
// with the file exporter on; a handful of transfers; then the gap report
// finds every stage of each transfer, in order, with non-negative gaps, in
// one trace from the payer's POST to the payer's commit callback, and each
// callback sent as its position stage committed (CALLBACK_EARLY).

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { startProcess, startApart, startPair } = require('../../../test/support/processes')
const { unique } = require('../../../test/support/config')
const { loadSpans } = require('../../../perf/src/analyze/load')
const { buildReport } = require('../../../perf/src/analyze/report')

const TRANSFERS = 5
const closers = []
afterAll(async () => {
  for (const close of closers.reverse()) await close()
})

/**
 * `npm start`: the API and every handler in one process.
 * @param {Record<string, string>} env
 */
async function oneProcess (env) {
  const app = startProcess('scripts/start.js', [], { ...env, API_PORT: '0', ADMIN_PORT: '0', HANDLERS: 'all' })
  closers.push(() => app.stop())
  const [, apiUrl] = await app.waitForOutput(/FSPIOP API\s+(http:\/\/\S+)/)
  const [, adminUrl] = await app.waitForOutput(/admin API\s+(http:\/\/\S+)/)
  return { apiUrl, adminUrl, stop: async () => [await app.stop()] }
}

/**
 * As operators and the bench run it: the API in one process, the handlers in
 * another.
 * @param {Record<string, string>} env
 */
const apart = (env) => startApart(env, closers)

test.each([['one process', oneProcess], ['the API and the handlers apart', apart]])('%s: each transfer forms one trace whose stages the gap report finds in order', async (_name, start) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-traces-'))
  const id = unique('tr')
  const { apiUrl, adminUrl, stop } = await start({ KAFKA_TOPIC_PREFIX: `${id}.`, KAFKA_CLIENT_ID: id, TRACING_EXPORTERS: 'file', TRACING_DIR: dir })
  const { payer, payee, commitTransfer } = await startPair({ apiUrl, adminUrl }, closers, 't')

  const ids = []
  // Each sent, fulfilled and COMMITTED at both participants (startPair asserts each).
  for (let i = 0; i < TRANSFERS; i++) ids.push(await commitTransfer('5'))
  // SIGTERM: a process flushes its spans as the last step of shutdown.
  for (const exit of await stop()) expect(exit).toEqual({ code: 0, signal: null })

  const report = buildReport(await loadSpans([dir]), { top: 3, transferIds: ids })
  expect(report.missing).toEqual([])
  // The handlers share a process with the notification handler, which is
  // its group's only member: each callback is tried as its position stage
  // commits (CALLBACK_EARLY), so the notification stage that records it may
  // come before or after it, but never before its position stage.
  const expected = [
    'API POST /transfers', 'prepare', 'position reserve', 'callback POST',
    'API PUT /transfers/{id}', 'fulfil', 'position commit', 'callback PUT'
  ]
  for (const transfer of report.details) {
    const labels = transfer.events.map((e) => e.label)
    // Every stage, in causal order (the two final callbacks may interleave).
    let at = -1
    for (const label of expected) {
      const next = labels.indexOf(label, at + 1)
      expect({ transfer: transfer.id, label, found: next > at }).toEqual({ transfer: transfer.id, label, found: true })
      at = next
    }
    expect(labels.filter((l) => l === 'callback PUT')).toHaveLength(2)
    const notifications = labels.flatMap((l, i) => (l === 'notification' ? [i] : []))
    expect(notifications).toHaveLength(3)
    expect(notifications[0]).toBeGreaterThan(labels.indexOf('position reserve'))
    expect(notifications[1]).toBeGreaterThan(labels.indexOf('position commit'))
    // Each callback was sent once, and early: the first transfer's too,
    // unless it came before the notification consumer had heard it was
    // alone in its group (it asks after joining).
    const callbacks = transfer.events.filter((e) => e.kind === 'callback')
    expect(callbacks.map((e) => e.label)).toEqual(['callback POST', 'callback PUT', 'callback PUT'])
    const early = callbacks.filter((e) => /\bearly\b/.test(e.detail)).length
    expect({ transfer: transfer.id, early }).toEqual({ transfer: transfer.id, early: transfer.id === ids[0] ? expect.any(Number) : 3 })
    expect(transfer.events.every((e) => e.gapBeforeMs >= 0)).toBe(true)
    expect(transfer.events.filter((e) => e.kind === 'stage').every((e) => e.queueGapMs !== null && e.queueGapMs >= 0)).toBe(true)
    // One tree from the payer's POST to the payer's commit callback.
    expect({ id: transfer.id, link: transfer.link, traces: transfer.traces }).toEqual({ id: transfer.id, link: 'tree', traces: 1 })
    expect(transfer.events[0].label).toBe('API POST /transfers')
    expect(transfer.sqlStatements).toBeGreaterThan(0)
    expect(transfer.totalMs).toBeGreaterThanOrEqual(transfer.workMs)
  }

  // SQL spans show each statement with its placeholders, never the values it
  // carried (payment data has no place in traces): no transfer id or
  // participant of these transfers appears in any statement text.
  const sqlSpans = fs.readdirSync(dir).flatMap((f) => fs.readFileSync(path.join(dir, f), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)))
    .filter((s) => s.attributes['db.system.name'] === 'mysql')
  const texts = sqlSpans.map((s) => String(s.attributes['db.query.text']))
  // Every statement belongs to something traced: none of the start-up or
  // idle polling (timeout sweeps, callback recovery) starts a trace of its own.
  expect(sqlSpans.filter((s) => !s.parentSpanId).map((s) => String(s.attributes['db.query.text']).slice(0, 60))).toEqual([])
  for (const value of [...ids, payer.name, payee.name]) expect(texts.filter((t) => t.includes(value))).toEqual([])
}, 180000)
