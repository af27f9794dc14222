'use strict'

const { findErrorEntry } = require('./catalog')

/** @typedef {import('./catalog').CatalogEntry} CatalogEntry */

/**
 * @typedef {object} ExtensionList FSPIOP ExtensionList, passed through as is
 * @property {Array<{ key: string, value: string }>} extension
 */

/**
 * @typedef {object} FspiopErrorOptions
 * @property {boolean} [retriable] overrides the default for the code
 * @property {ExtensionList} [extensionList]
 * @property {unknown} [cause] the underlying error, for logs; never sent
 */

/**
 * @typedef {object} ErrorInformation
 * @property {string} errorCode
 * @property {string} errorDescription
 * @property {ExtensionList} [extensionList]
 */

// Infrastructure trouble that may clear by itself: the retry layer (DESIGN.md
// rule 5) retries these without matching on messages. 2000/2001/2002 stay
// false: doing the same thing again gives the same bug or the same gap.
const RETRIABLE_BY_DEFAULT = new Set(['1000', '1001', '2003', '2004', '2005'])

// FSPIOP ErrorDescription is String(1..128). A longer one fails the receiver's
// schema validation, which would turn our error into theirs, so the wire copy
// is cut; `message` keeps the whole text for logs.
const MAX_DESCRIPTION_LENGTH = 128

// A payee may send a code the catalog lacks but whose category it knows
// (e.g. 5107 or a scheme-specific 5150): it takes its category's entry (5100).
const CODE_SHAPE = /^[1-5][0-9]{3}$/

/**
 * The one error class of Switchyard: an FSPIOP error code with its catalog
 * key, the HTTP status for a synchronous answer, and whether retrying may help.
 * `message` is exactly the errorDescription sent on the wire (before the
 * 128-character cut).
 */
class FspiopError extends Error {
  /**
   * Prefer createFspiopError(); the constructor is for code that already holds
   * a catalog entry.
   *
   * @param {CatalogEntry} entry
   * @param {string} [errorDescription] defaults to the catalog description
   * @param {FspiopErrorOptions} [options]
   */
  constructor (entry, errorDescription = entry.description, options = {}) {
    super(errorDescription, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'FspiopError'
    this.code = entry.code
    this.key = entry.key
    this.description = entry.description
    this.httpStatus = entry.httpStatus
    this.retriable = options.retriable ?? RETRIABLE_BY_DEFAULT.has(entry.code)
    this.extensionList = options.extensionList
  }

  /**
   * The body of an error response or error callback.
   *
   * @returns {{ errorInformation: ErrorInformation }}
   */
  toErrorInformation () {
    /** @type {ErrorInformation} */
    const errorInformation = {
      errorCode: this.code,
      errorDescription: this.message.slice(0, MAX_DESCRIPTION_LENGTH)
    }
    if (this.extensionList) errorInformation.extensionList = this.extensionList
    return { errorInformation }
  }
}

/**
 * Builds an error from the catalog. The errorDescription is
 * "<catalog description> - <detail>" when a detail is given (Mojaloop style),
 * e.g. "Malformed syntax - amount.amount must match the Amount pattern".
 *
 * @param {string} codeOrKey '3101' or 'MALFORMED_SYNTAX'
 * @param {string} [detail] what exactly was wrong; shown to the participant
 * @param {FspiopErrorOptions} [options]
 * @returns {FspiopError}
 * @throws {RangeError} on a code or key the catalog does not have (a bug)
 */
function createFspiopError (codeOrKey, detail, options) {
  const entry = findErrorEntry(codeOrKey)
  if (!entry) throw new RangeError(`Unknown FSPIOP error code or key: ${JSON.stringify(codeOrKey)}`)
  const errorDescription = detail ? `${entry.description} - ${detail}` : entry.description
  return new FspiopError(entry, errorDescription, options)
}

/**
 * @param {unknown} code
 * @returns {boolean} true if code is one of the catalog's four-digit codes
 */
function isFspiopCode (code) {
  return typeof code === 'string' && CODE_SHAPE.test(code) && findErrorEntry(code) !== undefined
}

/**
 * Wraps an error a participant sent (typically a payee's 5xxx in
 * PUT /transfers/{ID}/error) so it can be passed on to the other side with
 * its code, description and extensions unchanged. Not retriable: the
 * participant decided, repeating our work would not change that.
 *
 * @param {{ errorInformation: ErrorInformation } | ErrorInformation} body the
 *   request body, or its errorInformation
 * @returns {FspiopError}
 * @throws {FspiopError} 3101 if errorCode is not an FSPIOP code
 */
function fromErrorInformation (body) {
  const info = body && typeof body === 'object' && 'errorInformation' in body
    ? body.errorInformation
    : /** @type {ErrorInformation} */ (body)
  const code = info?.errorCode
  const entry = typeof code === 'string' && CODE_SHAPE.test(code)
    ? findErrorEntry(code) ?? findErrorEntry(`${code.slice(0, 2)}00`)
    : undefined
  if (!entry) {
    throw createFspiopError('MALFORMED_SYNTAX', `errorInformation.errorCode ${JSON.stringify(code)} is not an FSPIOP error code`)
  }
  const description = typeof info.errorDescription === 'string' && info.errorDescription !== ''
    ? info.errorDescription
    : entry.description
  return new FspiopError({ ...entry, code }, description, { retriable: false, extensionList: info.extensionList })
}

module.exports = { FspiopError, createFspiopError, isFspiopCode, fromErrorInformation }
