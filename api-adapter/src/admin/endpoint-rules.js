'use strict'

// Which participant endpoints the admin API stores, and what their values must
// look like. Callback URLs are what the notification handler delivers to, so a
// bad one is refused here rather than discovered on the first callback.

// Like central-ledger, any FSPIOP_CALLBACK_URL_* type (TRANSFER_POST,
// TRANSFER_PUT, TRANSFER_ERROR, QUOTES, ...), including the bare base URL.
const CALLBACK_TYPE = /^FSPIOP_CALLBACK_URL(_[A-Z0-9]+)*$/

// The notification e-mail types central-ledger stores and Mojaloop
// provisioning scripts register for every participant.
const EMAIL_TYPES = new Set([
  'NET_DEBIT_CAP_ADJUSTMENT_EMAIL',
  'NET_DEBIT_CAP_THRESHOLD_BREACH_EMAIL',
  'SETTLEMENT_TRANSFER_POSITION_CHANGE_EMAIL'
])

// As the notification handler reads them (handlers/src/notification/url.js): spaces inside allowed.
const TEMPLATE = /\{\{\s*([A-Za-z][A-Za-z0-9_]*)\s*\}\}/g
// The transfer callbacks this switch delivers know one placeholder.
const TRANSFER_CALLBACK_TYPE = /^FSPIOP_CALLBACK_URL_TRANSFER(_[A-Z0-9]+)*$/
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

/**
 * @param {string} value
 * @param {string} type
 * @returns {string | undefined} what is wrong with a callback URL, if anything
 */
function checkCallbackUrl (value, type) {
  if (TRANSFER_CALLBACK_TYPE.test(type)) {
    const unknown = [...value.matchAll(TEMPLATE)].map((m) => m[1]).filter((name) => name !== 'transferId')
    if (unknown.length) return `value has {{${unknown[0]}}}; transfer callbacks fill in only {{transferId}}`
  }
  // Templates such as {{transferId}} are filled in at delivery: check the URL
  // with each template replaced by a plain path segment.
  const filled = value.replace(TEMPLATE, 'x')
  if (/[{}]/.test(filled)) return 'value has a malformed {{template}}'
  let url
  try {
    url = new URL(filled)
  } catch {
    return 'value must be an absolute http(s) URL'
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'value must be an http or https URL'
  if (url.username || url.password) return 'value must not carry credentials'
  return undefined
}

/**
 * @param {string} type
 * @param {string} value
 * @returns {string | undefined} what is wrong with the endpoint, if anything
 */
function checkEndpoint (type, value) {
  if (CALLBACK_TYPE.test(type)) return checkCallbackUrl(value, type)
  if (EMAIL_TYPES.has(type)) return EMAIL.test(value) ? undefined : 'value must be an e-mail address'
  return `type ${type} is not an FSPIOP_CALLBACK_URL_* type or a notification e-mail type`
}

module.exports = { checkEndpoint }
