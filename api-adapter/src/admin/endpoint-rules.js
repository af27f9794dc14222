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

const TEMPLATE = /\{\{[A-Za-z][A-Za-z0-9_]*\}\}/g
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

/**
 * @param {string} value
 * @returns {string | undefined} what is wrong with a callback URL, if anything
 */
function checkCallbackUrl (value) {
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
  if (CALLBACK_TYPE.test(type)) return checkCallbackUrl(value)
  if (EMAIL_TYPES.has(type)) return EMAIL.test(value) ? undefined : 'value must be an e-mail address'
  return `type ${type} is not an FSPIOP_CALLBACK_URL_* type or a notification e-mail type`
}

module.exports = { checkEndpoint }
