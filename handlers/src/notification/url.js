'use strict'

// Where a callback goes and with which headers: pure functions of the
// registered endpoint and the stored callback.
//
// Mojaloop renders the registered value as a template (`{{transferId}}`) and
// sends to the result as it is, so a value without the placeholder sends every
// PUT of every transfer to one URL. Switchyard accepts both forms:
//   - a template containing `{{transferId}}` is filled in and used as it is;
//   - any other value is a base URL: the FSPIOP resource path (the same path
//     that goes into FSPIOP-URI) is appended. A base that already ends with
//     the path's collection (`http://dfsp/transfers`, the usual registration
//     for FSPIOP_CALLBACK_URL_TRANSFER_POST) is not doubled:
//       POST  http://dfsp/transfers  + /transfers           → http://dfsp/transfers
//       PUT   http://dfsp             + /transfers/{id}      → http://dfsp/transfers/{id}
//       PUT   http://dfsp/transfers   + /transfers/{id}/error → http://dfsp/transfers/{id}/error

const PLACEHOLDERS = /\{\{\s*([^}]*?)\s*\}\}/g
const HAS_PLACEHOLDER = /\{\{[^}]*\}\}/
const HAS_TRANSFER_ID = /\{\{\s*transferId\s*\}\}/

// Set by the transport from the body, or meaningless for one hop: never copied.
const HOP_BY_HOP = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'expect',
  'content-length', 'proxy-connection', 'te', 'trailer'])

/**
 * An endpoint problem: by default one that no retry can fix, and the
 * callback fails at once; `retriable` for one an operator may fix meanwhile
 * (an endpoint not registered yet), retried like a participant that is down.
 */
class EndpointError extends Error {
  /** @param {string} message @param {{ retriable?: boolean }} [opts] */
  constructor (message, { retriable = false } = {}) {
    super(message)
    this.name = 'EndpointError'
    this.retriable = retriable
  }
}

/**
 * @param {string} template the participant's registered endpoint value
 * @param {{ transferId?: string | null, path: string }} callback
 * @returns {string}
 */
function callbackUrl (template, { transferId, path }) {
  const value = template.trim()
  let url
  if (HAS_TRANSFER_ID.test(value)) {
    if (!transferId) throw new EndpointError(`endpoint ${value} needs a transferId and the callback has none`)
    url = value.replace(PLACEHOLDERS, (whole, name) => {
      if (name !== 'transferId') throw new EndpointError(`endpoint ${value} has an unknown placeholder ${whole}`)
      return encodeURIComponent(transferId)
    })
  } else {
    if (HAS_PLACEHOLDER.test(value)) throw new EndpointError(`endpoint ${value} has an unknown placeholder`)
    url = joinBase(value, path)
  }
  let parsed
  try {
    parsed = new URL(url)
  } catch {
    throw new EndpointError(`endpoint ${value} is not a valid URL`)
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new EndpointError(`endpoint ${value} is not http(s)`)
  return parsed.href
}

/** @param {string} base @param {string} path */
function joinBase (base, path) {
  let root = base.replace(/\/+$/, '')
  const collection = (path.match(/^\/[^/?#]+/) || [''])[0]
  if (collection && root.endsWith(collection)) root = root.slice(0, -collection.length)
  return root + path
}

/**
 * The request headers: the message's FSPIOP headers as given (minus
 * hop-by-hop ones), FSPIOP-URI and FSPIOP-HTTP-Method set from the callback
 * itself (never copied from the request that caused it), and content-length.
 * @param {Record<string, string>} headers
 * @param {{ method: string, path: string, body: string | null }} callback
 * @returns {Record<string, string>}
 */
function callbackHeaders (headers, { method, path, body }) {
  /** @type {Record<string, string>} */
  const out = {}
  for (const [name, value] of Object.entries(headers || {})) {
    const lower = name.toLowerCase()
    if (HOP_BY_HOP.has(lower) || lower === 'fspiop-uri' || lower === 'fspiop-http-method') continue
    if (value !== undefined && value !== null) out[lower] = String(value)
  }
  out['fspiop-uri'] = path
  out['fspiop-http-method'] = method
  out['content-length'] = String(body === null ? 0 : Buffer.byteLength(body))
  return out
}

module.exports = { callbackUrl, callbackHeaders, EndpointError }
