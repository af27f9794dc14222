'use strict'

const crypto = require('node:crypto')

/**
 * JSON with object keys sorted at every level, so two requests that differ
 * only in key order hash the same.
 * @param {any} value
 * @returns {string}
 */
function canonicalJson (value) {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`
  }
  return JSON.stringify(value)
}

/** sha256 hex of the canonical request: the duplicate-detection fingerprint. @param {any} value */
const requestHash = (value) => crypto.createHash('sha256').update(canonicalJson(value)).digest('hex')

/** @param {string} b64url */
const decodeBase64Url = (b64url) => Buffer.from(b64url, 'base64url')

/**
 * FSPIOP: base64url(sha256(fulfilment bytes)) must equal the condition, and
 * the fulfilment must decode to exactly 32 bytes.
 * @param {string} fulfilment
 * @param {string} condition
 */
function fulfilmentMatches (fulfilment, condition) {
  const preimage = decodeBase64Url(fulfilment)
  if (preimage.length !== 32 || preimage.toString('base64url') !== fulfilment) return false
  return crypto.createHash('sha256').update(preimage).digest('base64url') === condition
}

/** A condition is the base64url of 32 bytes (43 characters, canonical). @param {string} condition */
function isValidCondition (condition) {
  const bytes = decodeBase64Url(condition)
  return bytes.length === 32 && bytes.toString('base64url') === condition
}

module.exports = { canonicalJson, requestHash, fulfilmentMatches, isValidCondition }
