'use strict'

// A CLIENT span for one callback delivery attempt, child of the notification
// stage span whose context was stored with the callback. The participant
// receives this span's traceparent, so a participant that traces can continue
// the transfer's trace (the payee's fulfil then joins it). A span that is not
// recorded (tracing off: no SDK, whose API injects nothing; or not sampled)
// has no context of its own to give: the stored trace headers go on as they
// came, so a participant's own traceparent and tracestate still reach the
// other participant, as publish.js promises.

const { trace, propagation, SpanKind, SpanStatusCode, ROOT_CONTEXT } = require('@opentelemetry/api')
const { TRACE_HEADERS } = require('@switchyard/shared/kafka')
const { injectSpan } = require('@switchyard/shared/tracing')

/**
 * @template T
 * @param {{ participant: string, transferId: string | null, method: string, path: string, headers: Record<string, string>, attempts: number, earlyAt?: number }} job
 * @param {string} url
 * @param {(headers: Record<string, string>) => Promise<T & { statusCode: number }>} send called with the headers to send
 * @returns {Promise<T & { statusCode: number }>}
 */
async function traceCallback (job, url, send) {
  /** @type {Record<string, string>} */
  const headers = {}
  /** @type {Record<string, string>} */
  const stored = {}
  for (const [k, v] of Object.entries(job.headers)) {
    if (TRACE_HEADERS.includes(k)) stored[k] = v
    else headers[k] = v
  }
  const attributes = {
    'switchyard.stage': 'callback',
    'switchyard.callback.to': job.participant,
    'switchyard.callback.attempt': job.attempts + 1,
    'http.request.method': job.method,
    'url.full': url
  }
  if (job.transferId) attributes['switchyard.transfer_id'] = job.transferId
  // Tried as its notification was committed, before its record was consumed (CALLBACK_EARLY).
  if (job.earlyAt !== undefined) attributes['switchyard.callback.early'] = true
  const span = trace.getTracer('switchyard').startSpan(`callback ${job.method} ${job.path.replace(/\/transfers\/[^/]+/, '/transfers/{id}')}`,
    { kind: SpanKind.CLIENT, attributes }, propagation.extract(ROOT_CONTEXT, stored))
  if (span.isRecording()) injectSpan(span, headers)
  else Object.assign(headers, stored)
  try {
    const result = await send(headers)
    span.setAttribute('http.response.status_code', result.statusCode)
    if (result.statusCode >= 400) span.setStatus({ code: SpanStatusCode.ERROR, message: `HTTP ${result.statusCode}` })
    return result
  } catch (err) {
    span.recordException(err)
    span.setStatus({ code: SpanStatusCode.ERROR, message: String(err.message) })
    throw err
  } finally {
    span.end()
  }
}

module.exports = { traceCallback }
