'use strict'

// What a span is, read from the conventions of Switchyard's tracing
// (shared/src/tracing, docs/gap-report.md). Older semantic-convention names
// are accepted beside the current ones, so traces from another collector or
// instrumentation version still classify.

/** @typedef {import('./types').Span} Span */

const TRANSFER_PATH = /\/transfers\/([^/?#]+)/

/** @param {Span} s @param {string[]} names */
function attr (s, ...names) {
  for (const n of names) if (s.attributes[n] !== undefined && s.attributes[n] !== null) return s.attributes[n]
  return undefined
}

/** @param {Span} s @returns {string | undefined} */
const transferIdOf = (s) => {
  const id = attr(s, 'switchyard.transfer_id')
  return id === undefined ? undefined : String(id)
}
const methodOf = (s) => attr(s, 'http.request.method', 'http.method')
/** @param {Span} s @returns {string | undefined} */
const pathOf = (s) => attr(s, 'url.path', 'http.target')
const statusCodeOf = (s) => attr(s, 'http.response.status_code', 'http.status_code')

/** An incoming FSPIOP request (the fastify request span). */
const isApi = (s) => s.kind === 'SERVER' && methodOf(s) !== undefined
/** One message handled by a stage (prepare, position, fulfil, notification, or any later one). */
const isStage = (s) => s.kind === 'CONSUMER' && attr(s, 'switchyard.stage') !== undefined && attr(s, 'switchyard.stage') !== 'callback'
/** One callback delivery attempt to a participant. */
const isCallback = (s) => s.kind === 'CLIENT' && attr(s, 'switchyard.stage') === 'callback'
/** A handler's DB transaction: its SQL spans are its children. */
const isBatch = (s) => s.kind === 'INTERNAL' && / batch$/.test(s.name) && attr(s, 'switchyard.stage') !== undefined
const isSql = (s) => s.kind === 'CLIENT' && String(attr(s, 'db.system.name', 'db.system') || '').toLowerCase() === 'mysql'
/** A span that becomes a row of a transfer's timeline. */
const isEvent = (s) => isApi(s) || isStage(s) || isCallback(s)

/** The transfer id in a `/transfers/{id}` path or URL, if any. */
function transferIdInPath (s) {
  const p = pathOf(s) || attr(s, 'url.full', 'http.url')
  const m = typeof p === 'string' ? TRANSFER_PATH.exec(p) : null
  return m ? decodeURIComponent(m[1]) : undefined
}

/** `/transfers/:id` and `/transfers/<the id>` both read `/transfers/{id}`. */
function routeOf (s, transferId) {
  const route = attr(s, 'http.route')
  if (typeof route === 'string') return route.replace(/:([A-Za-z]\w*)/g, '{$1}')
  let p = String(pathOf(s) || '/').split('?')[0]
  if (transferId) p = p.split(`/${transferId}`).join('/{id}')
  return p
}

/**
 * The row label and the stage it is grouped under. Stage spans read
 * `<stage> <action>` (`position reserve`), without the action when it only
 * repeats the stage (`prepare`, `fulfil`); callbacks read `callback <METHOD>`,
 * with ` error` for `PUT …/error`.
 * @param {Span} s @param {string} [transferId]
 * @returns {{ kind: 'api' | 'stage' | 'callback', label: string, stage: string, detail: string }}
 */
function describe (s, transferId) {
  if (isStage(s)) {
    const stage = attr(s, 'switchyard.stage')
    const action = attr(s, 'switchyard.action')
    const label = action && action !== stage ? `${stage} ${action}` : stage
    const where = attr(s, 'messaging.destination.name')
    const partition = attr(s, 'messaging.kafka.destination.partition')
    const offset = attr(s, 'messaging.kafka.message.offset')
    // A notification says whom it is for: a transfer's two final ones differ only there.
    const to = attr(s, 'switchyard.notify.to')
    const detail = [where === undefined ? '' : `${where}[${partition ?? '?'}]@${offset ?? '?'}`, to === undefined ? '' : `to ${to}`].filter(Boolean).join(', ')
    return { kind: 'stage', label, stage, detail }
  }
  if (isCallback(s)) {
    const url = String(attr(s, 'url.full', 'http.url') || '')
    const method = methodOf(s) || '?'
    const error = /\/error(\?|$)/.test(url) ? ' error' : ''
    const attempt = attr(s, 'switchyard.callback.attempt')
    const to = attr(s, 'switchyard.callback.to')
    const status = statusCodeOf(s)
    // Tried as the stage before committed it, ahead of the notification stage (CALLBACK_EARLY).
    const early = attr(s, 'switchyard.callback.early') === true ? 'early' : ''
    const detail = [to ? `to ${to}` : '', status !== undefined ? `HTTP ${status}` : '', attempt > 1 ? `attempt ${attempt}` : '', early].filter(Boolean).join(', ')
    return { kind: 'callback', label: `callback ${method}${error}`, stage: 'callback', detail }
  }
  const status = statusCodeOf(s)
  return { kind: 'api', label: `API ${methodOf(s)} ${routeOf(s, transferId)}`, stage: 'api', detail: status !== undefined ? `HTTP ${status}` : '' }
}

module.exports = { attr, transferIdOf, transferIdInPath, isApi, isBatch, isSql, isEvent, describe }
